/**
 * `npm run load`: the autocannon engine. Prepares the target (announced first, loopback guard), runs each
 * scenario in turn through autocannon's programmatic API with the shared reply check, gates on thresholds
 * (and a baseline), and writes load.json, load.md, load.html and load-junit.xml.
 */
import { resolve } from 'node:path';
import { main } from '../../src/kit/main.js';
import { preflight } from '../autocannon/preflight.js';
import { runScenario, type RunSoFar, type ScenarioRun } from '../autocannon/runner.js';
import { STREAMING_TIMING_METHOD } from '../autocannon/streaming-timing.js';
import { compareWithBaseline } from '../report/baseline.js';
import { assembleLoadReport, loadSecrets, writeLoadReports } from '../report/load-report.js';
import { errorKindsText, type LoadReport, type ScenarioResult } from '../report/load-results.js';
import { fmt, pct } from '../../src/kit/numbers.js';
import { scrubText, Secrets } from '../../src/kit/scrub.js';
import { writeReportHtml } from '../../src/report-folder/compose.js';
import { BUILTIN_THRESHOLD, evaluateThresholds, parseThreshold } from '../report/thresholds.js';
import { prepareLoadTarget, type LoadTarget } from '../target.js';
import { LOAD_USAGE, readLoadOptions, type LoadOptions } from './load-options.js';
import { medianRound } from '../report/rounds.js';
import { packageInfo } from '../../src/kit/package-root.js';

/** Per-request deadline: a reply not complete by then is a timeout (a stream that never ends). */
const TIMEOUT_S = 10;



// ---- the run

function printScenario(s: ScenarioResult, report: LoadReport): void {
  const l = s.latencyMs;
  // A rate made of refusals is not throughput: a run that is mostly 429s or errors says so first.
  const failedShare = s.requests > 0 ? Math.min(1, s.errors / s.requests) : 0;
  const lines = [
    failedShare > 0.5
      ? `${s.name}: MOSTLY FAILED: ${(failedShare * 100).toFixed(1)} % of ${s.requests} responses were errors (${errorKindsText(s)}); the ${fmt(s.requestsPerSecond)} req/s below count them`
      : `${s.name}: ${fmt(s.requestsPerSecond)} req/s, ${s.requests} responses in ${fmt(s.durationS)} s`,
    ...(failedShare > 0.5 ? [`  ${fmt(s.requestsPerSecond)} req/s, ${s.requests} responses in ${fmt(s.durationS)} s`] : []),
    `  latency ms: p50 ${fmt(l.p50)}, p90 ${fmt(l.p90)}, p99 ${fmt(l.p99)}, max ${fmt(l.max)}, mean ${fmt(l.mean)}`,
    `  errors: ${s.errors}${s.errors > 0 ? ` (${errorKindsText(s)})` : ''}`,
  ];
  if (s.streaming) {
    const st = s.streaming;
    lines.push(`  streaming: ${st.responses} responses, progress events min ${st.progressEvents.min} mean ${fmt(st.progressEvents.mean)}; `
      + `first event p50 ${fmt(st.timeToFirstEventMs.p50)} p99 ${fmt(st.timeToFirstEventMs.p99)} ms; result p50 ${fmt(st.timeToResultMs.p50)} p99 ${fmt(st.timeToResultMs.p99)} ms`);
  }
  if (s.rounds) lines.push(`  rounds: ${s.rounds.map((r) => `${fmt(r.requestsPerSecond)} req/s p99 ${fmt(r.p99)} ms`).join('; ')} (the median round above; errors count every round)`);
  const c = report.baseline?.scenarios.find((b) => b.name === s.name);
  if (c) lines.push(`  vs baseline: req/s ${pct(c.requestsPerSecond.changePct)}, p99 ${pct(c.p99.changePct)}`);
  console.log(lines.join('\n'));
}

const PROGRESS_EVERY_MS = 2000;

/** `mix: 4.0 of 10 s, 5120 requests sent, 5110 responses, 0 errors so far`. */
function progressLine(name: string, p: RunSoFar, durationS: number): string {
  return `${name}: ${p.elapsedS.toFixed(1)} of ${durationS} s, ${p.sent} requests sent, ${p.responses} responses, ${p.errors} errors so far`;
}

/** Runs the load and writes the reports; returns the verdict's exit code. */
async function run(o: LoadOptions): Promise<number> {
  const { kind, baseUrl, apiKey, scenarios, durationS, connections, rate, maxRequests, rounds, thresholds, baseline, reportDir } = o;
  let target: LoadTarget | undefined;
  let current: ScenarioRun | undefined;
  let interrupted: number | undefined;
  // SIGINT or SIGTERM: the scenario stops, the target closes, and the command exits as the signal asks.
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.on(signal, () => {
      if (interrupted !== undefined) process.exit(code);
      interrupted = code;
      console.error(`interrupted (${signal}): stopping the load (again to quit at once)`);
      current?.stop();
    });
  }

  const startedAt = new Date();
  try {
    target = await prepareLoadTarget({ kind, baseUrl, apiKey, allowRemote: o.allowRemote, mutant: o.mutant, log: (line) => console.error(scrubText(line, secrets)) });
    secrets = loadSecrets({ apiKey: target.apiKey, baseUrl, admin: target.admin });
    const targetInfo = { kind: target.kind, baseUrl: target.baseUrl, description: target.description };
    await preflight(target);
    const rateText = rate === undefined ? 'closed loop' : `${rate} req/s overall`;
    console.error(`load: ${scenarios.map((s) => s.name).join(', ')}; ${durationS} s each, ${connections} connections, ${rateText}, at most ${maxRequests} requests per scenario`);

    const results: ScenarioResult[] = [];
    for (const scenario of scenarios) {
      if (interrupted !== undefined) break;
      console.error(`scenario ${scenario.name}: ${scenario.description}`);
      const done: ScenarioResult[] = [];
      for (let round = 1; round <= rounds && interrupted === undefined; round++) {
        if (rounds > 1) console.error(`${scenario.name}: round ${round} of ${rounds}`);
        const running = runScenario(target, scenario, { durationS, connections, rate, maxRequests, timeoutS: TIMEOUT_S, progress: o.progress });
        current = running;
        // Without a terminal (CI) no progress bar: a plain line every 2 s instead.
        const ticker = o.progressLines ? setInterval(() => console.error(progressLine(scenario.name, running.soFar(), durationS)), PROGRESS_EVERY_MS) : undefined;
        try {
          done.push(await running.result);
        } finally {
          clearInterval(ticker);
        }
        current = undefined;
      }
      if (done.length === rounds) results.push(medianRound(done));
    }
    await target.close();
    target = undefined;
    if (interrupted !== undefined) {
      console.error('interrupted: no report written');
      process.exit(interrupted);
    }

    const comparison = baseline && compareWithBaseline(results, baseline, o.baselinePath!);
    const builtin = parseThreshold(BUILTIN_THRESHOLD, 'builtin');
    const evaluated = evaluateThresholds([builtin, ...thresholds], results, comparison);
    const report = assembleLoadReport({
      tool: packageInfo(),
      target: targetInfo,
      settings: {
        scenarios: scenarios.map((s) => s.name),
        durationS,
        connections,
        rate: rate ?? null,
        maxRequests,
        rounds,
        timeoutS: TIMEOUT_S,
        thresholds: [BUILTIN_THRESHOLD, ...thresholds.map((t) => `${t.scenario ? `${t.scenario}:` : ''}${t.expression}`)],
        baseline: o.baselinePath ?? null,
        streamingTiming: STREAMING_TIMING_METHOD,
      },
      startedAt: startedAt.toISOString(),
      durationMs: Date.now() - startedAt.getTime(),
      scenarios: results,
      thresholds: evaluated,
      ...(comparison && { baseline: comparison }),
    });
    const written = writeLoadReports(report, reportDir, secrets);
    const files = written.files;
    // The folder's report.html (a conformance run's page) gets the load plots: src/report-folder composes it.
    try {
      const html = writeReportHtml(reportDir, secrets);
      if (html) files.push(resolve(html));
    } catch (err) {
      console.error(scrubText(`load: report.html not updated (${(err as Error).message})`, secrets));
    }

    // Printed from the scrubbed copy, like the reports.
    const clean = written.report;
    for (const s of clean.scenarios) printScenario(s, clean);
    console.log(`thresholds: ${clean.thresholds.filter((t) => t.ok).length} of ${clean.thresholds.length} hold`);
    for (const t of clean.thresholds.filter((x) => !x.ok)) console.log(`  FAIL ${t.scenario}: ${t.expression}, actual ${t.actual === null ? 'not measured' : fmt(t.actual, 4)}${t.note ? ` (${t.note})` : ''}`);
    console.log(clean.verdict);
    console.log(`reports:\n${files.map((f) => `  ${f}`).join('\n')}`);
    return report.exitCode;
  } finally {
    await target?.close().catch(() => undefined);
  }
}

// Console lines, error lines and reports pass one scrubber: a --base-url may carry credentials, a reply may echo the key.
let secrets = new Secrets();
await main({ usage: LOAD_USAGE, scrub: (text) => scrubText(text, secrets) }, () => run(readLoadOptions(undefined, (read) => (secrets = read))));
