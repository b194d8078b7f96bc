/**
 * `npm run load`: the autocannon engine. Prepares the target (announced first, loopback guard), runs each
 * scenario in turn through autocannon's programmatic API with the shared reply check, gates on thresholds
 * (and a baseline: a stored load.json, or a second server loaded in this run, in pairs of rounds with the target),
 * and writes load.json, load.md, load.html and load-junit.xml.
 */
import { resolve } from 'node:path';
import { main } from '../kit/main.js';
import { preflight } from '../../load/preflight.js';
import { runScenario, type RunSoFar, type ScenarioRun } from '../../load/autocannon/runner.js';
import { STREAMING_TIMING_METHOD } from '../../load/autocannon/streaming-timing.js';
import { comparePaired, compareWithBaseline, type PairedScenario } from '../../load/report/baseline.js';
import { assembleLoadReport, loadSecrets, writeLoadReports } from '../../load/report/load-report.js';
import { errorKindsText, type LoadReport, type RoundPair, type ScenarioResult } from '../../load/report/load-results.js';
import { fmt, pct } from '../kit/numbers.js';
import { scrubText, Secrets } from '../kit/scrub.js';
import { writeReportHtml } from '../reports/folder/compose.js';
import { BUILTIN_THRESHOLD, evaluateThresholds, intervalText, parseThreshold } from '../../load/report/thresholds.js';
import { prepareLoadTarget, type LoadTarget } from '../../load/target.js';
import { LOAD_USAGE, readLoadOptions, type LoadOptions } from './load-options.js';
import { medianRound } from '../../load/report/rounds.js';
import { packageInfo } from '../kit/package-root.js';

/** Per-request deadline: a reply not complete by then is a timeout (a stream that never ends). */
const TIMEOUT_S = 10;
/** With --baseline-url: seconds of load on each side before a scenario's pairs, not counted. */
const WARM_UP_S = 1;



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
  if (c?.paired) {
    lines.push(`  vs baseline, in pairs: ${intervalText(c)}`);
    lines.push(`  pairs (baseline → target): ${c.paired.pairs.map((p) => `${fmt(p.baseline.requestsPerSecond)} → ${fmt(p.current.requestsPerSecond)} req/s, p99 ${fmt(p.baseline.p99)} → ${fmt(p.current.p99)} ms`).join('; ')}`);
  } else if (c) {
    lines.push(`  vs baseline: req/s ${pct(c.requestsPerSecond.changePct)}, p99 ${pct(c.p99.changePct)}`);
  }
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
  let baselineTarget: LoadTarget | undefined;
  // The runs under way: one, or two when a pair's rounds run together.
  const current = new Set<ScenarioRun>();
  let interrupted: number | undefined;
  // SIGINT or SIGTERM: the scenario stops, the target closes, and the command exits as the signal asks.
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.on(signal, () => {
      if (interrupted !== undefined) process.exit(code);
      interrupted = code;
      console.error(`interrupted (${signal}): stopping the load (again to quit at once)`);
      for (const run of current) run.stop();
    });
  }

  const startedAt = new Date();
  try {
    target = await prepareLoadTarget({ kind, baseUrl, apiKey, allowRemote: o.allowRemote, mutant: o.mutant, log: (line) => console.error(scrubText(line, secrets)) });
    if (o.baselineUrl !== undefined) {
      baselineTarget = await prepareLoadTarget({ kind: 'url', baseUrl: o.baselineUrl, allowRemote: o.allowRemote, log: (line) => console.error(scrubText(`baseline ${line}`, secrets)) });
    }
    secrets = loadSecrets({ apiKey: target.apiKey, baseUrl, baselineUrl: o.baselineUrl, baselineKey: baselineTarget?.apiKey, admin: target.admin });
    const targetInfo = { kind: target.kind, baseUrl: target.baseUrl, description: target.description };
    await preflight(target);
    if (baselineTarget) await preflight(baselineTarget);
    const rateText = rate === undefined ? 'closed loop' : `${rate} req/s overall`;
    console.error(`load: ${scenarios.map((s) => s.name).join(', ')}; ${durationS} s each, ${connections} connections, ${rateText}, at most ${maxRequests} requests per scenario`
      + `${!baselineTarget ? '' : o.pairing === 'together' ? `; ${rounds} pairs of rounds, the baseline and the target loaded together, ${connections} connections each`
        : `; ${rounds} pairs of rounds, the baseline's and the target's alternately`}`);

    /** One round of `scenario` against `t`. */
    const runRound = async (t: LoadTarget, scenario: (typeof scenarios)[number], seconds = durationS): Promise<ScenarioResult> => {
      const label = t === baselineTarget ? `${scenario.name} (baseline)` : scenario.name;
      const running = runScenario(t, scenario, { durationS: seconds, connections, rate, maxRequests, timeoutS: TIMEOUT_S, progress: o.progress });
      current.add(running);
      // Without a terminal (CI) no progress bar: a plain line every 2 s instead.
      const ticker = o.progressLines ? setInterval(() => console.error(progressLine(label, running.soFar(), seconds)), PROGRESS_EVERY_MS) : undefined;
      try {
        return await running.result;
      } finally {
        clearInterval(ticker);
        current.delete(running);
      }
    };

    const results: ScenarioResult[] = [];
    const paired: PairedScenario[] = [];
    for (const scenario of scenarios) {
      if (interrupted !== undefined) break;
      console.error(`scenario ${scenario.name}: ${scenario.description}`);
      if (!baselineTarget) {
        const done: ScenarioResult[] = [];
        for (let round = 1; round <= rounds && interrupted === undefined; round++) {
          if (rounds > 1) console.error(`${scenario.name}: round ${round} of ${rounds}`);
          done.push(await runRound(target, scenario));
        }
        if (done.length === rounds) results.push(medianRound(done));
        continue;
      }
      // A warm-up second of each side first, not counted: a server's first second (JIT, connections) ran at
      // a fraction of its speed here, and would make the first pair's ratio say more about who went first.
      console.error(`${scenario.name}: warm-up of the baseline and the target, ${WARM_UP_S} s, not counted`);
      await Promise.all([runRound(baselineTarget, scenario, WARM_UP_S), runRound(target, scenario, WARM_UP_S)]);
      const sides = { baseline: [] as ScenarioResult[], current: [] as ScenarioResult[] };
      const pairs: RoundPair[] = [];
      for (let pair = 1; pair <= rounds && interrupted === undefined; pair++) {
        const order = o.pairing === 'together' ? 'together' : pair % 2 === 1 ? 'baseline-first' : 'current-first';
        const got: Partial<Record<'baseline' | 'current', ScenarioResult>> = {};
        if (order === 'together') {
          // Both at once, each on its own connections: whatever the neighbours do to the machine during the
          // round, they do to both sides (duet benchmarking).
          console.error(`${scenario.name}: pair ${pair} of ${rounds}, the baseline and the target together`);
          [got.baseline, got.current] = await Promise.all([runRound(baselineTarget, scenario), runRound(target, scenario)]);
        } else {
          // Pairs alternate which side goes first (AB, BA, AB...): a machine that slows down or warms up over
          // the run then weighs on the baseline and the target alike, instead of always on the second.
          for (const side of order === 'baseline-first' ? (['baseline', 'current'] as const) : (['current', 'baseline'] as const)) {
            if (interrupted !== undefined) break;
            console.error(`${scenario.name}: pair ${pair} of ${rounds}, ${side === 'baseline' ? 'the baseline' : 'the target'}`);
            got[side] = await runRound(side === 'baseline' ? baselineTarget : target, scenario);
          }
        }
        if (interrupted !== undefined || !got.baseline || !got.current) break;
        sides.baseline.push(got.baseline);
        sides.current.push(got.current);
        const point = (r: ScenarioResult) => ({ requestsPerSecond: r.requestsPerSecond, p99: r.latencyMs.p99 });
        pairs.push({ order, baseline: point(got.baseline), current: point(got.current) });
      }
      if (pairs.length === rounds) {
        const currentResult = medianRound(sides.current);
        results.push(currentResult);
        paired.push({ current: currentResult, baseline: medianRound(sides.baseline), pairs });
      }
    }
    await target.close();
    target = undefined;
    await baselineTarget?.close();
    baselineTarget = undefined;
    if (interrupted !== undefined) {
      console.error('interrupted: no report written');
      process.exit(interrupted);
    }

    const comparison = baseline ? compareWithBaseline(results, baseline, o.baselinePath!)
      : o.baselineUrl !== undefined ? comparePaired(paired, o.baselineUrl, startedAt.toISOString()) : undefined;
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
        baselineUrl: o.baselineUrl ?? null,
        ...(o.baselineUrl !== undefined && { pairing: o.pairing }),
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
    // The folder's report.html (a conformance run's page) gets the load plots: src/reports/folder composes it.
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
    await baselineTarget?.close().catch(() => undefined);
  }
}

// Console lines, error lines and reports pass one scrubber: a --base-url may carry credentials, a reply may echo the key.
let secrets = new Secrets();
await main({ usage: LOAD_USAGE, scrub: (text) => scrubText(text, secrets) }, () => run(readLoadOptions(undefined, (read) => (secrets = read))));
