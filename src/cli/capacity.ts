/**
 * `mcp-canvas-harness capacity` (npm run capacity): prepares the target (announced first, loopback guard),
 * runs the capacity search (load/capacity/run-capacity.ts) with a line per step on stderr, writes capacity.json,
 * capacity.md, capacity.html and capacity-junit.xml, and prints the verdict first, then a line per scenario.
 * Its options: src/cli/capacity-options.ts.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../kit/main.js';
import { makeDir } from '../kit/make-dir.js';
import { CAPACITY_JSON } from '../../load/capacity/report/capacity-json.js';
import { CAPACITY_MD } from '../../load/capacity/report/capacity-md.js';
import { CAPACITY_HTML } from '../../load/capacity/report/capacity-html.js';
import { CAPACITY_JUNIT } from '../../load/capacity/report/capacity-junit.js';
import { scrubText, Secrets } from '../kit/scrub.js';
import { writeReportHtml } from '../reports/folder/compose.js';
import { prepareLoadTarget, UNTHROTTLED, type LoadTarget } from '../../load/target.js';
import { runCapacity } from '../../load/capacity/run-capacity.js';
import { preflight } from '../../load/preflight.js';
import { makeRunners } from '../../load/capacity/runners.js';
import { capacityWord, writeCapacityReports } from '../../load/capacity/report/capacity-report.js';
import { rateText } from '../../load/capacity/report/capacity-word.js';
import { CAPACITY_USAGE, readCapacityOptions, type CapacityOptions } from './capacity-options.js';

let secrets = (): Secrets => new Secrets();
const redact = (text: string) => scrubText(text, secrets());
const log = (line: string) => console.error(redact(line));

async function run(o: CapacityOptions): Promise<number> {
  let target: LoadTarget | undefined;
  const given = secrets();
  secrets = () => given.with({ values: [o.apiKey, target?.apiKey, target?.admin?.token], urls: [o.baseUrl, target?.admin?.url] });
  try {
    // A folder reused from an earlier run must not show that run's capacity as this one's (issue 36).
    makeDir(o.reportDir);
    for (const file of [CAPACITY_JSON, CAPACITY_MD, CAPACITY_HTML, CAPACITY_JUNIT]) rmSync(join(o.reportDir, file), { force: true });
    target = await prepareLoadTarget({
      kind: o.kind,
      ...(o.baseUrl && { baseUrl: o.baseUrl }),
      ...(o.kind === 'url' && o.apiKey && { apiKey: o.apiKey }),
      allowRemote: o.allowRemote,
      reference: UNTHROTTLED,
      ...(o.mutant && { mutant: o.mutant }),
      log,
    });
    // A target that cannot be reached or refuses the key is no verdict (exit 2), not a search of connection errors.
    await preflight(target);
    if (o.arrivals === 'poisson' && !o.seedGiven) log(`capacity: Poisson arrivals with --seed ${o.seed}`);
    const report = await runCapacity({
      target, scenarios: o.scenarios, slos: o.slos, maxRate: o.maxRate, startRate: o.startRate, tolerance: o.tolerance, arrivals: o.arrivals, seed: o.seed,
      warmupS: o.warmupS, windowS: o.windowS, maxWindowS: o.maxWindowS, timeoutS: o.timeoutS, connections: o.connections, calibrate: o.calibrate,
      ...(o.expectRate !== undefined && { expectRate: o.expectRate }), overload: o.overload, ...(o.soakS !== undefined && { soakS: o.soakS }), soakFraction: o.soakFraction,
      maxTimeS: o.maxTimeS,
      ...(!o.quiet && { log }),
      ...makeRunners(o, target, log),
    });
    const { files, report: clean } = writeCapacityReports(o.reportDir, report, secrets());
    try {
      const html = writeReportHtml(o.reportDir, secrets());
      if (html) files.push(html);
    } catch (err) {
      log(`capacity: report.html not updated (${(err as Error).message})`);
    }
    const word = capacityWord(clean);
    const out = [
      `${word}: ${clean.exitCode === 2 ? `no sound answer: ${clean.noAnswer}` : clean.scenarios.map((s) => `${s.scenario} ${s.sustained === null ? 'holds no rate within its SLO' : `${s.bound === 'slo' ? 'holds' : 'holds at least'} ${rateText(s.sustained, 'slo')}`}`).join('; ')}`,
      ...clean.scenarios.map((s) => `  ${s.scenario} [${s.bound}]: ${s.summary}`),
      ...clean.findings.map((f) => `  ${f}`),
      `spent: ${clean.spent.requests} requests to the target in ${clean.spent.durationS} s${clean.calibration.requests ? ` (and ${clean.calibration.requests} to the harness's own no-op endpoint, calibrating)` : ''}`,
      `generator: ${clean.calibration.note}`,
      `reports:\n${files.map((f) => `  ${f}`).join('\n')}`,
    ];
    console.log(redact(out.join('\n')));
    return report.exitCode;
  } finally {
    await target?.close();
  }
}

await main({ usage: CAPACITY_USAGE, scrub: redact }, () => run(readCapacityOptions(undefined, (read) => (secrets = () => read))));
