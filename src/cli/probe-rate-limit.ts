/**
 * npm run probe:rate-limit -- [options]: finds a deployment's real rate limits per key (sustained rate,
 * burst, limiter shape), checks Retry-After and isolation between keys, and writes probe.json, probe.md,
 * probe.html and probe-junit.xml. Its options: src/cli/probe-options.ts.
 */
import { join } from 'node:path';
import { main } from '../kit/main.js';
import { prepareLoadTarget, type LoadTarget } from '../../load/target.js';
import { KeyRing } from '../../load/probe/keys.js';
import { runProbe, type ProbeSoFar } from '../../load/probe/probe.js';
import { verdictWord, writeProbeReports } from '../../load/probe/probe-report.js';
import { writeReportHtml } from '../reports/folder/compose.js';
import { PROBE_USAGE, readProbeOptions, type ProbeOptions } from './probe-options.js';
import { scrubText, Secrets } from '../kit/scrub.js';

/** Every secret the probe holds so far: the keys given, then the target's and the ring's (it learns keys as it goes). */
let secrets = (): Secrets => new Secrets();
const redact = (text: string) => scrubText(text, secrets());
const log = (line: string) => console.error(redact(line));

/** Probes the target and writes the reports; returns the verdict's exit code. */
async function run(o: ProbeOptions): Promise<number> {
  const { kind, baseUrl, apiKey, plan, configured, maxTimeS, maxRate, startRate } = o;
  let ring: KeyRing | undefined;
  let target: LoadTarget | undefined;
  secrets = () => Secrets.from({
    values: [apiKey, o.siblingKey, o.otherKey, target?.apiKey, target?.admin?.token, ...(ring?.keys ?? [])],
    urls: [baseUrl, target?.admin?.url],
  });
  try {
    target = await prepareLoadTarget({
      kind,
      ...(baseUrl && { baseUrl }),
      ...(kind === 'url' && apiKey && { apiKey }),
      allowRemote: o.allowRemote,
      ...(o.reference && { reference: o.reference }),
      ...(o.mutant && { mutant: o.mutant }),
      log,
    });
    ring = new KeyRing(target, { plan: plan ?? '', ...(o.siblingKey && { siblingKey: o.siblingKey }), ...(o.otherKey && { otherKey: o.otherKey }) });
    log(`probe: ${plan ? `plan "${plan}"${configured ? ` (configured ${configured.ratePerSecond} req/s, burst ${configured.burst})` : ''}, ` : ''}budget ${maxTimeS} s, offered rates ${startRate} to ${maxRate} req/s, at most ${o.maxRequests} requests`);
    const result = await runProbe({
      target, keys: ring, ...(plan !== undefined && { plan }), ...(configured && { configured }),
      maxTimeS, maxRate, startRate, stepTimeS: o.stepTimeS, refineSteps: o.refineSteps, maxRequests: o.maxRequests, maxBurst: o.maxBurst, tolerancePct: o.tolerancePct,
      ...(o.expectRate !== undefined && { expectRate: o.expectRate }), ...(o.expectBurst !== undefined && { expectBurst: o.expectBurst }),
      log,
      ...(!o.quiet && {
        progress: (p: ProbeSoFar) => log(`probe: ${p.elapsedS.toFixed(1)} of ${maxTimeS} s, ${p.sent} requests sent, ${p.throttled} × 429, ${p.errors} errors so far`),
      }),
    });
    // Printed from the scrubbed copy the reports were written from.
    const { files, result: clean } = writeProbeReports(result, o.reportDir, secrets());
    // The folder's report.html (a conformance run's page) gets the probe's section: src/reports/folder composes it.
    try {
      const html = writeReportHtml(o.reportDir, secrets());
      if (html) files.push(html);
    } catch (err) {
      log(`probe: report.html not updated (${(err as Error).message})`);
    }
    const out = [
      ...clean.findings,
      '',
      ...clean.verdicts.map((v) => `${v.status === 'fail' ? 'FAIL' : v.status.padEnd(4)}  ${v.id}: ${v.message}`),
      '',
      `${verdictWord(clean)}: ${verdictWord(clean) === 'INCONCLUSIVE' ? `${clean.sustained.summary} (${o.expectRate === undefined ? '--expect-rate makes this a failure' : '--expect-rate not testable'}); ` : ''}${clean.requests} requests in ${clean.durationS} s`,
      `reports:\n${files.map((f) => `  ${join(f)}`).join('\n')}`,
    ];
    console.log(redact(out.join('\n')));
    return result.exitCode;
  } finally {
    await target?.close();
  }
}

// An unreachable or unsafe target, or any other error, is main()'s: one scrubbed line, exit 2.
await main({ usage: PROBE_USAGE, scrub: redact }, () => run(readProbeOptions(undefined, (read) => (secrets = () => read))));
