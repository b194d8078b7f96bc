/**
 * The capacity driver's cost and accuracy, measured in one run on loopback (a benchmark, not a test):
 *
 * 1. CPU per request at a fixed arrival rate: the capacity search's undici open-model driver, k6
 *    (constant-arrival-rate, load/k6/stateless-post.ts) and autocannon (overallRate), each against the same
 *    no-op endpoint (load/capacity/no-op-child.ts), each in a process of its own whose CPU time (user + system,
 *    every thread) is read from /proc/<pid>/stat every 20 ms until it exits. Each runs twice, SHORT and LONG
 *    seconds, and the marginal cost is ΔCPU / Δrequests: the start-up (node's, k6's) cancels out. Rounds
 *    interleave the generators, so a machine busy with other work hurts all three alike; medians are reported.
 * 2. The driver's planned-send accuracy: its send lag p50, p99 and max at each rate (the LONG run's).
 *
 *   npm run bench:capacity-driver -- [--rates 1000,5000] [--rounds 2] [--json <file>]
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCommandLine } from '../src/kit/command-line.js';
import { main } from '../src/kit/main.js';
import { listOption, numberOption } from '../src/kit/options.js';
import { spawnServerChild, killAllChildren } from '../src/kit/server-child.js';
import { PACKAGE_ROOT, program } from '../src/kit/package-root.js';
import { MCP_PATH, requestHeaders, scenarioByName } from '../load/scenarios.js';
import { ensureK6 } from '../load/k6-binary.js';
import { fixed, int, renderTable } from './bench/table.js';

const USAGE = 'Usage: npm run bench:capacity-driver -- [--rates 1000,5000] [--rounds 2] [--json <file>]';
const SHORT_S = 2;
const LONG_S = 6;
const TICKS_PER_S = 100; // Linux's USER_HZ: /proc/<pid>/stat counts CPU in 1/100 s

type Generator = 'capacity driver' | 'k6' | 'autocannon';
const GENERATORS: Generator[] = ['capacity driver', 'k6', 'autocannon'];

interface Run { cpuS: number; requests: number; lag?: { p50: number; p99: number; max: number }; dropped?: number }

/** Runs `command`, reading its CPU time from /proc until it exits; resolves with that and its stdout. */
function measured(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ cpuS: number; stdout: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    let ticks = 0;
    const read = () => {
      try {
        const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of the line)
      } catch {
        // Gone: the last reading stands.
      }
    };
    const timer = setInterval(read, 20);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearInterval(timer);
      resolve({ cpuS: ticks / TICKS_PER_S, stdout, code });
    });
  });
}

async function runOnce(generator: Generator, baseUrl: string, rate: number, seconds: number, work: string): Promise<Run> {
  const url = `${baseUrl}${MCP_PATH}`;
  if (generator === 'capacity driver') {
    const r = await measured(process.execPath, [program('scripts/bench/capacity-driver-child.ts'), url, String(rate), String(seconds)]);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { sent: number; lagP50Ms: number; lagP99Ms: number; lagMaxMs: number };
    return { cpuS: r.cpuS, requests: out.sent, lag: { p50: out.lagP50Ms, p99: out.lagP99Ms, max: out.lagMaxMs } };
  }
  if (generator === 'k6') {
    const dir = join(work, `k6-${rate}-${seconds}-${Date.now()}`);
    mkdirSync(dir);
    const r = await measured(ensureK6(), ['run', '--address', '', '--quiet', join(PACKAGE_ROOT, 'load/k6/stateless-post.ts')], {
      ...process.env, MCP_BASE_URL: baseUrl, MCP_API_KEY: 'bench', LOAD_RATE: String(rate), LOAD_DURATION: String(seconds), LOAD_P99_MS: '60000', SUMMARY_DIR: dir, K6_NO_USAGE_REPORT: 'true',
    });
    const report = JSON.parse(readFileSync(join(dir, 'load-k6.json'), 'utf8')) as { scenarios: { requests: number; droppedIterations: number }[] };
    return { cpuS: r.cpuS, requests: report.scenarios[0]!.requests, dropped: report.scenarios[0]!.droppedIterations };
  }
  const body = JSON.stringify(scenarioByName('tools-list')!.requests[0]!.body);
  const headers = Object.entries(requestHeaders('bench')).flatMap(([k, v]) => ['-H', `${k}=${v}`]);
  const r = await measured(process.execPath, [join(PACKAGE_ROOT, 'node_modules/autocannon/autocannon.js'), '-m', 'POST', ...headers, '-b', body, '-c', '100', '--overallRate', String(rate), '-d', String(seconds), '-j', url]);
  const out = JSON.parse(r.stdout) as { requests: { total: number }; errors: number };
  return { cpuS: r.cpuS, requests: out.requests.total };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function run(): Promise<number> {
  const { values } = parseCommandLine(USAGE, { rates: { type: 'string' }, rounds: { type: 'string' }, json: { type: 'string' } });
  const rates = (listOption('--rates', values.rates, 'rate') ?? ['1000', '5000']).map((r) => numberOption('--rates', r, { min: 1, max: 50_000, fallback: 1000 }));
  const rounds = numberOption('--rounds', values.rounds, { integer: true, min: 1, max: 10, fallback: 2 });
  const work = mkdtempSync(join(tmpdir(), 'bench-capacity-'));
  const endpoint = await spawnServerChild({ name: 'no-op endpoint', script: 'load/capacity/no-op-child.ts', cwd: PACKAGE_ROOT });
  const results: Array<{ rate: number; generator: Generator; usPerRequest: number; achieved: number; cores: number; lag?: Run['lag']; dropped?: number }> = [];
  try {
    console.log(`machine: ${cpus().length} x ${cpus()[0]?.model.trim()}, node ${process.version}; ${rounds} rounds, runs of ${SHORT_S} s and ${LONG_S} s per generator and rate`);
    for (const rate of rates) {
      const per = new Map<Generator, { us: number[]; achieved: number[]; cores: number[]; lag: Run['lag'][]; dropped: number[] }>();
      for (let round = 0; round < rounds; round++) {
        // Interleaved, the order turning each round: A B C, B C A, ...
        const order = GENERATORS.map((_, i) => GENERATORS[(i + round) % GENERATORS.length]!);
        for (const g of order) {
          const short = await runOnce(g, endpoint.url, rate, SHORT_S, work);
          const long = await runOnce(g, endpoint.url, rate, LONG_S, work);
          const entry = per.get(g) ?? { us: [], achieved: [], cores: [], lag: [], dropped: [] };
          entry.us.push(((long.cpuS - short.cpuS) / Math.max(1, long.requests - short.requests)) * 1e6);
          entry.achieved.push(long.requests / LONG_S);
          entry.cores.push(long.cpuS / LONG_S);
          entry.lag.push(long.lag);
          entry.dropped.push(long.dropped ?? 0);
          per.set(g, entry);
        }
      }
      for (const g of GENERATORS) {
        const e = per.get(g)!;
        const lags = e.lag.filter((l): l is NonNullable<Run['lag']> => l !== undefined);
        results.push({
          rate, generator: g, usPerRequest: median(e.us), achieved: median(e.achieved), cores: median(e.cores),
          ...(lags.length > 0 && { lag: { p50: median(lags.map((l) => l.p50)), p99: median(lags.map((l) => l.p99)), max: median(lags.map((l) => l.max)) } }),
          ...(g === 'k6' && { dropped: median(e.dropped) }),
        });
      }
    }
  } finally {
    await endpoint.stop();
    rmSync(work, { recursive: true, force: true });
  }
  const rows = results.map((r) => [String(r.rate), r.generator, int(r.achieved), fixed(r.usPerRequest, 1), fixed(r.cores, 2),
    r.lag ? `${fixed(r.lag.p50, 2)} / ${fixed(r.lag.p99, 2)} / ${fixed(r.lag.max, 1)}` : '', r.dropped !== undefined ? int(r.dropped) : '']);
  console.log(renderTable(['rate', 'generator', 'achieved req/s', 'CPU µs/request (marginal)', 'CPU cores (6 s run)', 'send lag p50 / p99 / max ms', 'k6 dropped'], rows, ['r', 'l']));
  for (const rate of rates) {
    const of = (g: Generator) => results.find((r) => r.rate === rate && r.generator === g)!.usPerRequest;
    console.log(`${rate} req/s: CPU per request, capacity driver / k6 = ${fixed(of('capacity driver') / of('k6'), 2)}, capacity driver / autocannon = ${fixed(of('capacity driver') / of('autocannon'), 2)} (measured in this run)`);
  }
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ machine: { cpus: cpus().length, model: cpus()[0]?.model.trim() }, shortS: SHORT_S, longS: LONG_S, rounds, results }, null, 2)}\n`);
  return 0;
}

process.once('SIGINT', () => {
  killAllChildren();
  process.exit(130);
});
await main({ usage: USAGE }, run);
