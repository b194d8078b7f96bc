/**
 * `npm run load:k6`: the k6 engine. Installs the pinned k6 when missing, prepares the target (announced
 * first, loopback guard), sizes the run under the hard caps, and runs the plain k6 script with every input in
 * k6's environment (never its command line: a key on a command line shows in `ps`).
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { K6LoadReport } from '../../load/k6/summary.js';
import { join } from 'node:path';
import { main } from '../kit/main.js';
import { scrubText, Secrets } from '../kit/scrub.js';
import { loadSecrets } from '../../load/report/load-report.js';
import { findK6, k6Line } from '../../load/k6-binary.js';
import { prepareLoadTarget, type LoadTarget } from '../../load/target.js';
import { LOAD_K6_USAGE, readLoadK6Options, type LoadK6Options } from './load-k6-options.js';
import { PACKAGE_ROOT } from '../kit/package-root.js';
import { makeDir } from '../kit/make-dir.js';

const ROOT = PACKAGE_ROOT;
const OUTPUT_FILES = ['k6-summary.json', 'k6-junit.xml', 'load-k6.json'] as const;
/** k6's own output (banner, progress, text summary), apart from the verdict. */
const K6_OUTPUT = 'k6-output.log';

/**
 * k6's environment: the parent's, less anything that would steer k6 or the script behind the caps' back
 * (K6_* options such as K6_DURATION, inherited LOAD_*, MCP_* or SUMMARY_DIR), plus this run's inputs.
 */
function k6Environment(o: LoadK6Options, target: LoadTarget): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(K6_|LOAD_|MCP_|SUMMARY_DIR$)/.test(name)) env[name] = value;
  }
  return {
    ...env,
    ...o.loadEnv,
    MCP_BASE_URL: target.baseUrl,
    MCP_API_KEY: target.apiKey,
    SUMMARY_DIR: o.reportDir,
    // No anonymous usage report to Grafana from a test run.
    K6_NO_USAGE_REPORT: 'true',
  };
}

/** The signal that interrupted the run, if one did: the command then exits as it asks (130, 143). */
let interruptedBy: 'SIGINT' | 'SIGTERM' | undefined;

/**
 * Runs k6; resolves with its exit code (null when killed by a signal). k6's own output (banner, progress, its
 * text summary) is kept apart from the verdict: each line goes to stderr prefixed "k6 | ", and all of it to
 * k6-output.log in the report folder. The command's stdout is the verdict alone.
 */
function runK6(k6: string, o: LoadK6Options, target: LoadTarget): Promise<number | null> {
  // --address '': no REST API listener (several runs on one machine would fight over port 6565). A process
  // group of its own: a signal reaches k6 once, from here, whether a terminal's Ctrl-C or npm sent it to
  // this process alone (k6 takes a second SIGINT as "abort without a summary").
  const child = spawn(k6, ['run', '--address', '', o.script], { cwd: ROOT, env: k6Environment(o, target), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const log = createWriteStream(join(o.reportDir, K6_OUTPUT));
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      const clean = scrubText(line, secrets);
      log.write(`${clean}\n`);
      process.stderr.write(`k6 | ${clean}\n`);
    });
  }
  const forward = (signal: 'SIGINT' | 'SIGTERM') => () => {
    if (interruptedBy) return;
    interruptedBy = signal;
    console.error(`load:k6: ${signal}, waiting for k6 to stop and write its summary`);
    child.kill(signal);
  };
  const onSigint = forward('SIGINT');
  const onSigterm = forward('SIGTERM');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  return new Promise((resolveExit, reject) => {
    child.once('error', reject);
    // 'close': the exit, and the last of its output read.
    child.once('close', (code) => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
      log.end(() => resolveExit(code));
    });
  });
}

/** The verdict first, as load and probe print it, then a line per scenario from load-k6.json. */
function verdictLines(report: K6LoadReport, code: number | null): string[] {
  const failed = report.thresholds.filter((t) => !t.ok);
  const first = code === 99 || failed.length > 0
    ? `FAIL: ${failed.length} of ${report.thresholds.length} k6 thresholds crossed: ${failed.slice(0, 5).map((t) => `${t.expression}${t.actual !== undefined ? ` (actual ${t.actual})` : ''}`).join('; ')}`
    : `PASS: all ${report.thresholds.length} k6 thresholds hold`;
  const lines = [first];
  for (const sc of report.scenarios) {
    const l = sc.latencyMs;
    lines.push(`  ${sc.name}: offered ${sc.offeredRate}/s, achieved ${sc.requestsPerSecond}/s (${sc.requests} requests${sc.droppedIterations ? `, ${sc.droppedIterations} iterations dropped: k6 could not offer the rate` : ''}); `
      + `p50 ${l.p50} p90 ${l.p90} p99 ${l.p99} max ${l.max} ms; errors ${sc.errors}${sc.errors ? ` (${Object.entries(sc.errorsByKind).map(([k, v]) => `${k} ${v}`).join(', ')})` : ''}`);
  }
  const empty = report.thresholds.filter((t) => t.noData);
  if (empty.length > 0) lines.push(`  ${empty.length} threshold(s) had no samples to judge: ${empty.map((t) => t.expression).join('; ')}`);
  return lines;
}

/** Runs k6 on the target; returns the verdict's exit code (k6 not running to its end is an error, not a verdict). */
async function run(o: LoadK6Options): Promise<number> {
  const k6 = findK6();
  const target = await prepareLoadTarget({ kind: o.kind, baseUrl: o.baseUrl, apiKey: o.apiKey, allowRemote: o.allowRemote, mutant: o.mutant, log: (line) => console.error(scrubText(line, secrets)) });
  secrets = loadSecrets({ apiKey: target.apiKey, baseUrl: o.baseUrl, admin: target.admin });
  let code: number | null;
  try {
    makeDir(o.reportDir);
    // A stale file from an earlier run must not pass for this run's result.
    for (const file of [...OUTPUT_FILES, K6_OUTPUT]) rmSync(join(o.reportDir, file), { force: true });
    console.error(`load:k6: ${o.inputs.scenarios.map((s) => s.name).join(', ')} at ${o.inputs.ratePerScenario}/s each for ${o.inputs.durationS} s (${o.script.slice(ROOT.length)})`);
    console.error(k6Line(k6));
    code = await runK6(k6.path, o, target);
  } finally {
    await target.close();
  }

  const written = OUTPUT_FILES.map((file) => join(o.reportDir, file)).filter((path) => existsSync(path));
  const reportFile = join(o.reportDir, 'load-k6.json');
  if (!interruptedBy && (code === 0 || code === 99) && existsSync(reportFile)) {
    console.log(scrubText(verdictLines(JSON.parse(readFileSync(reportFile, 'utf8')) as K6LoadReport, code).join('\n'), secrets));
  }
  const logs = [...written, join(o.reportDir, K6_OUTPUT)].filter((path) => existsSync(path));
  if (logs.length > 0) console.log(`reports:\n${logs.map((path) => `  ${path}`).join('\n')}`);
  if (interruptedBy) return interruptedBy === 'SIGINT' ? 130 : 143;
  // "A failed threshold exits 99"; any other failure means k6 could not run the test: no verdict.
  if (code === 0 && written.length === OUTPUT_FILES.length) return 0;
  if (code === 99 && written.length === OUTPUT_FILES.length) {
    return 1;
  }
  throw new Error(`k6 ${code === null ? 'was killed' : `exited ${code}`}${written.length < OUTPUT_FILES.length ? ' without writing its summary files' : ''}`);
}

// Error lines pass the load reports' scrubber: a --base-url may carry credentials, an error may quote the key.
let secrets = new Secrets();
await main({ usage: LOAD_K6_USAGE, scrub: (text) => scrubText(text, secrets) }, () => run(readLoadK6Options(undefined, (read) => (secrets = read))));
