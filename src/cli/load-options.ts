/**
 * `npm run load`'s command line: its usage text and the reading of its options, every value checked before
 * any traffic. Apart from the command (src/cli/load.ts) so that the tests can judge bad input without a
 * process per case (test/load/load-cli.test.ts).
 */
import { parseCommandLine } from '../kit/command-line.js';
import { exitStatus } from '../kit/main.js';
import { enumOption, listOption, numberOption, urlOption, UsageError } from '../kit/options.js';
import type { Secrets } from '../kit/scrub.js';
import { keyOption, mutantOption, targetOption } from './shared-options.js';
import { BaselineError, readBaseline } from '../../load/report/baseline.js';
import { loadSecrets } from '../../load/report/load-report.js';
import { PAIRINGS, type LoadReport } from '../../load/report/load-results.js';
import {
  BUILTIN_THRESHOLD, DEFAULT_REGRESSION, DEFAULT_THRESHOLDS, ThresholdError, parseThreshold, thresholdProblem, type Threshold,
} from '../../load/report/thresholds.js';
import { CAPS } from '../../load/safety.js';
import { SCENARIOS, scenarioByName, type Scenario } from '../../load/scenarios.js';
import { LOAD_TARGET_KINDS } from '../../load/target.js';
import { callerPath, invocation, reportDirOption } from '../kit/invocation.js';
import { makeDir } from '../kit/make-dir.js';

const DEFAULT_SCENARIOS = ['tools-list', 'mix'];

export const LOAD_USAGE = `Usage: ${invocation('load')} [options]

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
  --rounds <n>            run each scenario n times back to back and report its round of median req/s
                          (errors count every round); --baseline's regression then compares the medians of
                          req/s and of p99, not one sample each (default 1, at most 9). With --baseline-url:
                          the number of pairs of rounds (default 5, at least 3)
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
                          (vs the baseline: the larger of the req/s drop and the p99 rise, in %; with
                          --baseline-url judged on its interval). Default when no --threshold is given:
                          ${DEFAULT_THRESHOLDS.join(', ')} (and ${DEFAULT_REGRESSION} with a baseline). ${BUILTIN_THRESHOLD} is always checked.
  --baseline-url <url>    compare with a second server, the base, in this same run: each scenario loads
                          the base and the target in pairs of rounds (--rounds, --pairing), and the
                          regression is the mean over the pairs of target/base (req/s and p99) with a
                          95 % t interval; regression<=20% fails only when the whole interval is above
                          20 %. The way to gate a pull request on a shared machine: two runs one after the
                          other differ by more than the regressions worth catching. Needs --target url
                          (the candidate); loopback only unless --allow-remote; its key comes from its
                          bootstrap endpoint
  --pairing together|alternate  with --baseline-url, how a pair's two rounds run: together (default: both
                          loaded during the same seconds, --connections each, so whatever slows the machine
                          slows both; beside other work, req/s noise 0.3-15 % per pair) or alternate (one after
                          the other, AB BA AB...: 7-88 % per pair there). Together, the two sides share
                          the load generator: a slower side leaves more of it to the faster, which widens a
                          difference (a real slowdown shows larger, a same-code run stays near zero)
  --baseline <load.json>  an earlier run's load.json: compare req/s and p99 (the regression metric), one
                          stored sample against this run's (only as good as the two machines are alike)

Run
  --report-dir <dir>      where the files go (default: env HARNESS_REPORT_DIR, else reports/latest)
  -h, --help              this help

Latency is each response's own time at microsecond resolution (HDR histogram); an SSE reply's latency
runs to the end of its stream. Time to first event and to result are measured on the load's own
streaming replies, through autocannon's per-connection client events.

${exitStatus('every threshold holds', 'a threshold fails')}`;

const fail = (message: string): never => {
  throw new UsageError(message);
};

/**
 * The command line (`args`, default process.argv), every value checked before any traffic. `onSecrets` gets
 * the key and URL to scrub as soon as they are read: a usage error may quote them.
 */
export function readLoadOptions(args: string[] | undefined, onSecrets: (secrets: Secrets) => void) {
  const { values } = parseCommandLine(LOAD_USAGE, {
    target: { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'allow-remote': { type: 'boolean' },
    mutant: { type: 'string' }, scenario: { type: 'string', multiple: true }, duration: { type: 'string' }, connections: { type: 'string' },
    rate: { type: 'string' }, 'max-requests': { type: 'string' }, quiet: { type: 'boolean' }, threshold: { type: 'string', multiple: true },
    baseline: { type: 'string' }, 'baseline-url': { type: 'string' }, pairing: { type: 'string' }, 'report-dir': { type: 'string' }, rounds: { type: 'string' },
  }, { args });
  const apiKey = keyOption(values, 'api-key');
  onSecrets(loadSecrets({ apiKey, baseUrl: values['base-url'], baselineUrl: values['baseline-url'] }));
  const { kind, baseUrl } = targetOption(values, { kinds: LOAD_TARGET_KINDS, baseUrlKinds: ['url'] });
  const mutant = mutantOption(values.mutant, kind, 'load');
  const baselineUrl = urlOption('--baseline-url', values['baseline-url']);
  if (baselineUrl !== undefined) {
    if (values.baseline !== undefined) fail('--baseline-url and --baseline are two ways to compare: a server loaded in this run, or a stored load.json; give one');
    if (kind !== 'url') fail(`--baseline-url compares two servers: give the candidate as --target url --base-url <url>, not --target ${kind}`);
  }
  const hasBaseline = values.baseline !== undefined || baselineUrl !== undefined;
  const pairing = enumOption('--pairing', values.pairing, PAIRINGS);
  if (pairing !== undefined && baselineUrl === undefined) fail('--pairing says how the rounds of --baseline-url pair up: give --baseline-url <url>');

  const names = listOption('--scenario', values.scenario, 'scenario name') ?? DEFAULT_SCENARIOS;
  const scenarios: Scenario[] = names.map((n) => scenarioByName(n) ?? fail(`unknown scenario "${n}"; known: ${SCENARIOS.map((x) => x.name).join(', ')}`));

  const durationS = numberOption('--duration', values.duration, { integer: true, min: 1, max: CAPS.durationS, unit: 'seconds', fallback: 10 });
  const connections = numberOption('--connections', values.connections, { integer: true, min: 1, max: CAPS.connections, fallback: 10 });
  const rate = numberOption('--rate', values.rate, { min: 1, max: CAPS.rate });
  const maxRequests = numberOption('--max-requests', values['max-requests'], { integer: true, min: 1, max: CAPS.requests, fallback: CAPS.requests });
  // An interval needs pairs to measure the noise from: 3 at least (2 degrees of freedom).
  const rounds = numberOption('--rounds', values.rounds, baselineUrl !== undefined ? { integer: true, min: 3, max: 9, fallback: 5 } : { integer: true, min: 1, max: 9, fallback: 1 });

  const thresholdTexts = values.threshold ?? [];
  let thresholds: Threshold[] = [];
  try {
    thresholds = thresholdTexts.length > 0
      ? thresholdTexts.map((t) => parseThreshold(t, 'option'))
      : [...DEFAULT_THRESHOLDS, ...(hasBaseline ? [DEFAULT_REGRESSION] : [])].map((t) => parseThreshold(t, 'default'));
  } catch (err) {
    if (err instanceof ThresholdError) fail(err.message);
    throw err;
  }
  const thresholdIssue = thresholdProblem(thresholds, scenarios, hasBaseline);
  if (thresholdIssue) fail(thresholdIssue);

  let baseline: LoadReport | undefined;
  if (values.baseline !== undefined) {
    try {
      baseline = readBaseline(callerPath(values.baseline));
    } catch (err) {
      if (err instanceof BaselineError) fail(err.message);
      throw err;
    }
  }

  const reportDir = reportDirOption(values['report-dir'], 'reports/latest');
  try {
    makeDir(reportDir);
  } catch (err) {
    fail(`--report-dir ${reportDir}: ${(err as Error).message}`);
  }
  return {
    kind, baseUrl, apiKey, allowRemote: values['allow-remote'] ?? false, mutant, scenarios, durationS, connections, rate, maxRequests, rounds,
    thresholds, baseline, baselinePath: values.baseline, baselineUrl, pairing: pairing ?? 'together', reportDir, progress: !values.quiet && process.stderr.isTTY === true,
    progressLines: !values.quiet && process.stderr.isTTY !== true,
  };
}

export type LoadOptions = ReturnType<typeof readLoadOptions>;
