/**
 * `npm run load`: the autocannon engine. Prepares the target (announced first, loopback guard), runs each
 * scenario in turn through autocannon's programmatic API with the shared reply check, gates on thresholds
 * (and a baseline), and writes load.json, load.md, load.html and load-junit.xml.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCommandLine } from '../../src/kit/command-line.js';
import { exitStatus, main } from '../../src/kit/main.js';
import { listOption, numberOption, UsageError } from '../../src/kit/options.js';
import { keyOption, mutantOption, targetOption } from '../../src/cli/shared-options.js';
import { preflight } from '../autocannon/preflight.js';
import { runScenario, type RunSoFar, type ScenarioRun } from '../autocannon/runner.js';
import { STREAMING_TIMING_METHOD } from '../autocannon/streaming-timing.js';
import { BaselineError, compareWithBaseline, readBaseline } from '../report/baseline.js';
import { assembleLoadReport, loadSecrets, writeLoadReports } from '../report/load-report.js';
import { errorKindsText, type LoadReport, type ScenarioResult } from '../report/load-results.js';
import { fmt, pct } from '../../src/kit/numbers.js';
import { scrubText, Secrets } from '../../src/kit/scrub.js';
import { writeReportHtml } from '../../src/report-folder/compose.js';
import {
  BUILTIN_THRESHOLD, DEFAULT_REGRESSION, DEFAULT_THRESHOLDS, ThresholdError, evaluateThresholds, parseThreshold, thresholdProblem, type Threshold,
} from '../report/thresholds.js';
import { CAPS } from '../safety.js';
import { SCENARIOS, scenarioByName, type Scenario } from '../scenarios.js';
import { LOAD_TARGET_KINDS, prepareLoadTarget, type LoadTarget } from '../target.js';

const DEFAULT_SCENARIOS = ['tools-list', 'mix'];
/** Per-request deadline: a reply not complete by then is a timeout (a stream that never ends). */
const TIMEOUT_S = 10;

const USAGE = `Usage: npm run load -- [options]

Load-tests the service with autocannon (closed loop, or a fixed arrival rate), one scenario after the
other; checks every reply (status, content type, JSON-RPC id and result, progress events of streaming
calls); gates on thresholds; writes load.json, load.md, load.html and load-junit.xml.

Target (announced on stderr before any traffic)
  --target embedded|url|container  where to send load (default embedded: the reference server in its own
                          process, unthrottled; url: --base-url; container: the repository's image via
                          testcontainers)
  --base-url <url>        the service's base URL (url target); loopback only unless --allow-remote
  --api-key <key>         a live key (better: env MCP_API_KEY, a command line shows in ps); default: one
                          from the bootstrap endpoint (its plan may throttle: a 429 counts as an error)
  --allow-remote          allow a non-loopback --base-url (load is traffic someone pays for)
  --mutant <name>         embedded only: a deliberately broken reference (the harness's own tests)

Load
  --scenario <name>       repeatable or comma-separated (default: ${DEFAULT_SCENARIOS.join(' and ')}); one of
                          ${SCENARIOS.map((s) => s.name).join(', ')}
  --duration <s>          seconds of load per scenario, whole seconds (default 10, at most ${CAPS.durationS})
  --connections <n>       concurrent connections (default 10, at most ${CAPS.connections})
  --rate <req/s>          fixed overall arrival rate (autocannon's overallRate; default: none, a closed
                          loop); at most ${CAPS.rate}. Each connection sends its share of a second's
                          requests one after the other, then waits for the next second: arrivals come in
                          bursts, and a slow server is not offered the full rate (npm run load:k6 is open-model)
  --max-requests <n>      stop a scenario after this many requests (default and at most ${CAPS.requests})
  --quiet                 no progress: by default stderr shows autocannon's progress bar on a terminal,
                          else a plain line every 2 s (scenario, elapsed, requests sent, responses, errors)

Verdict
  --threshold <expr>      a gate, repeatable: [scenario:]metric<op>value, op one of < <= > >= ==, e.g.
                          p99<250  errors==0  rps>=500  error-rate<1%  mix:p99<400ms  regression<=20%
                          schedule-preview:ttfe-p99<200. Without a scenario it applies to every scenario
                          (ttfe/ttr: to every streaming one). Metrics: rps; requests; errors (failed
                          replies, timeouts, connection errors; a 429 is one); error-rate (a fraction, or
                          with %); p50 p90 p99 max mean (latency, ms); ttfe-p50 ttfe-p90 ttfe-p99 ttfe-max,
                          ttr-p50 ... ttr-max (streaming: time to first event, to result, ms); regression
                          (vs --baseline: the larger of the req/s drop and the p99 rise, in %).
                          Default when no --threshold is given: ${DEFAULT_THRESHOLDS.join(', ')} (and ${DEFAULT_REGRESSION} with
                          --baseline). ${BUILTIN_THRESHOLD} is always checked.
  --baseline <load.json>  an earlier run's load.json: compare req/s and p99 (the regression metric)

Run
  --report-dir <dir>      where the files go (default reports/latest)
  -h, --help              this help

Latency is each response's own time at microsecond resolution (HDR histogram); an SSE reply's latency
runs to the end of its stream. Time to first event and to result are measured on the load's own
streaming replies, through autocannon's per-connection client events.

${exitStatus('every threshold holds', 'a threshold fails')}`;

const fail = (message: string): never => {
  throw new UsageError(message);
};

/** The command line, every value checked before any traffic. */
function readOptions() {
  const { values } = parseCommandLine(USAGE, {
    target: { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'allow-remote': { type: 'boolean' },
    mutant: { type: 'string' }, scenario: { type: 'string', multiple: true }, duration: { type: 'string' }, connections: { type: 'string' },
    rate: { type: 'string' }, 'max-requests': { type: 'string' }, quiet: { type: 'boolean' }, threshold: { type: 'string', multiple: true },
    baseline: { type: 'string' }, 'report-dir': { type: 'string' },
  });
  const apiKey = keyOption(values, 'api-key');
  secrets = loadSecrets({ apiKey, baseUrl: values['base-url'] });
  const { kind, baseUrl } = targetOption(values, { kinds: LOAD_TARGET_KINDS, baseUrlKinds: ['url'] });
  const mutant = mutantOption(values.mutant, kind, 'load');

  const names = listOption('--scenario', values.scenario, 'scenario name') ?? DEFAULT_SCENARIOS;
  const scenarios: Scenario[] = names.map((n) => scenarioByName(n) ?? fail(`unknown scenario "${n}"; known: ${SCENARIOS.map((x) => x.name).join(', ')}`));

  const durationS = numberOption('--duration', values.duration, { integer: true, min: 1, max: CAPS.durationS, unit: 'seconds', fallback: 10 });
  const connections = numberOption('--connections', values.connections, { integer: true, min: 1, max: CAPS.connections, fallback: 10 });
  const rate = numberOption('--rate', values.rate, { min: 1, max: CAPS.rate });
  const maxRequests = numberOption('--max-requests', values['max-requests'], { integer: true, min: 1, max: CAPS.requests, fallback: CAPS.requests });

  const thresholdTexts = values.threshold ?? [];
  let thresholds: Threshold[] = [];
  try {
    thresholds = thresholdTexts.length > 0
      ? thresholdTexts.map((t) => parseThreshold(t, 'option'))
      : [...DEFAULT_THRESHOLDS, ...(values.baseline ? [DEFAULT_REGRESSION] : [])].map((t) => parseThreshold(t, 'default'));
  } catch (err) {
    if (err instanceof ThresholdError) fail(err.message);
    throw err;
  }
  const thresholdIssue = thresholdProblem(thresholds, scenarios, values.baseline !== undefined);
  if (thresholdIssue) fail(thresholdIssue);

  let baseline: LoadReport | undefined;
  if (values.baseline !== undefined) {
    try {
      baseline = readBaseline(values.baseline);
    } catch (err) {
      if (err instanceof BaselineError) fail(err.message);
      throw err;
    }
  }

  const reportDir = values['report-dir'] ?? 'reports/latest';
  try {
    mkdirSync(reportDir, { recursive: true });
  } catch (err) {
    fail(`--report-dir ${reportDir}: ${(err as Error).message}`);
  }
  return {
    kind, baseUrl, apiKey, allowRemote: values['allow-remote'] ?? false, mutant, scenarios, durationS, connections, rate, maxRequests,
    thresholds, baseline, baselinePath: values.baseline, reportDir, progress: !values.quiet && process.stderr.isTTY === true,
    progressLines: !values.quiet && process.stderr.isTTY !== true,
  };
}

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };

// ---- the run

function printScenario(s: ScenarioResult, report: LoadReport): void {
  const l = s.latencyMs;
  const lines = [
    `${s.name}: ${fmt(s.requestsPerSecond)} req/s, ${s.requests} responses in ${fmt(s.durationS)} s`,
    `  latency ms: p50 ${fmt(l.p50)}, p90 ${fmt(l.p90)}, p99 ${fmt(l.p99)}, max ${fmt(l.max)}, mean ${fmt(l.mean)}`,
    `  errors: ${s.errors}${s.errors > 0 ? ` (${errorKindsText(s)})` : ''}`,
  ];
  if (s.streaming) {
    const st = s.streaming;
    lines.push(`  streaming: ${st.responses} responses, progress events min ${st.progressEvents.min} mean ${fmt(st.progressEvents.mean)}; `
      + `first event p50 ${fmt(st.timeToFirstEventMs.p50)} p99 ${fmt(st.timeToFirstEventMs.p99)} ms; result p50 ${fmt(st.timeToResultMs.p50)} p99 ${fmt(st.timeToResultMs.p99)} ms`);
  }
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
async function run(o: ReturnType<typeof readOptions>): Promise<number> {
  const { kind, baseUrl, apiKey, scenarios, durationS, connections, rate, maxRequests, thresholds, baseline, reportDir } = o;
  let target: LoadTarget | undefined;
  let current: ScenarioRun | undefined;
  let interrupted = false;
  process.on('SIGINT', () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error('interrupted: stopping the load (Ctrl-C again to quit at once)');
    current?.stop();
  });

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
      if (interrupted) break;
      console.error(`scenario ${scenario.name}: ${scenario.description}`);
      const running = runScenario(target, scenario, { durationS, connections, rate, maxRequests, timeoutS: TIMEOUT_S, progress: o.progress });
      current = running;
      // Without a terminal (CI) no progress bar: a plain line every 2 s instead.
      const ticker = o.progressLines ? setInterval(() => console.error(progressLine(scenario.name, running.soFar(), durationS)), PROGRESS_EVERY_MS) : undefined;
      try {
        results.push(await running.result);
      } finally {
        clearInterval(ticker);
      }
      current = undefined;
    }
    await target.close();
    target = undefined;
    if (interrupted) {
      console.error('interrupted: no report written');
      process.exit(130);
    }

    const comparison = baseline && compareWithBaseline(results, baseline, o.baselinePath!);
    const builtin = parseThreshold(BUILTIN_THRESHOLD, 'builtin');
    const evaluated = evaluateThresholds([builtin, ...thresholds], results, comparison);
    const report = assembleLoadReport({
      tool: { name: pkg.name, version: pkg.version },
      target: targetInfo,
      settings: {
        scenarios: scenarios.map((s) => s.name),
        durationS,
        connections,
        rate: rate ?? null,
        maxRequests,
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
await main({ usage: USAGE, scrub: (text) => scrubText(text, secrets) }, () => run(readOptions()));
