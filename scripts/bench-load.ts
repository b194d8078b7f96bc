/**
 * Two load numbers, measured in one run on loopback (benchmarks, not tests):
 *
 * 1. The load generator is not the bottleneck: against one trivial endpoint (a bare node:http server in its
 *    own process answering every POST with a minimal JSON-RPC result) with the same connections, our
 *    autocannon runner (load/autocannon/runner.ts, every reply judged as in `npm run load`) reaches at least
 *    80 % of wrk's request rate. Rounds alternate the order; the ratio is of the medians. `--reply tools-list`
 *    replays the reference server's 9.5 KB tools/list reply instead: then judging every reply (JSON.parse)
 *    is what the runner spends its time on, and the ratio shows it.
 * 2. The reference server's stateless tools/list at a fixed arrival rate, driven by autocannon
 *    (overallRate) and by k6 (constant-arrival-rate): achieved rate, p50, p99, errors.
 *
 * Exit status: see USAGE.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseCommandLine } from '../src/kit/command-line.js';
import { exitStatus, main, readCommandLine } from '../src/kit/main.js';
import { enumOption, numberOption } from '../src/kit/options.js';
import { runScenario } from '../load/autocannon/runner.js';
import { requestHeaders, scenarioByName, MCP_PATH } from '../load/scenarios.js';
import { prepareLoadTarget } from '../load/target.js';
import { killAllChildren, spawnServerChild } from '../src/kit/server-child.js';
import { runWrk, type WrkResult } from './bench/wrk.js';
import { fixed, int, renderTable } from './bench/table.js';
import { PACKAGE_ROOT } from '../src/kit/package-root.js';

const TARGET = 0.8;
const USAGE = `Usage: npm run bench:load -- [--duration <s>] [--connections <n>] [--rounds <n>] [--wrk-threads <n>]
                                [--rate <req/s>] [--rate-duration <s>] [--json <file>]

1. autocannon runner vs wrk against a bare server replaying tools/list (target: ratio >= ${TARGET})
   --duration      seconds per measured run, after a 1 s warm-up (default 5)
   --connections   keep-alive connections for both generators (default 50)
   --rounds        rounds, order alternating (default 3)
   --wrk-threads   wrk threads (default 1: one core each, as autocannon's single event loop)
   --reply         trivial (default: a minimal JSON-RPC result) or tools-list (the reference's own reply)
2. the reference server's tools/list at a fixed arrival rate, autocannon then k6
   --rate          arrival rate, requests per second (default 1000)
   --rate-duration seconds (default 10)
   --json          also write the numbers to this file

${exitStatus('target met and no errors', 'target missed or a run had errors', 'a benchmark that does not finish')}`;

const ROOT = PACKAGE_ROOT;
const { settings, replyKind, jsonPath } = readCommandLine({ usage: USAGE }, () => {
  const { values } = parseCommandLine(USAGE, {
    duration: { type: 'string' }, connections: { type: 'string' }, rounds: { type: 'string' }, 'wrk-threads': { type: 'string' },
    rate: { type: 'string' }, 'rate-duration': { type: 'string' }, json: { type: 'string' }, reply: { type: 'string' },
  });
  const whole = (name: string, raw: string | undefined, fallback: number, min: number, max: number) => numberOption(name, raw, { integer: true, min, max, fallback });
  return {
    settings: {
      duration: whole('--duration', values.duration, 5, 1, 60),
      connections: whole('--connections', values.connections, 50, 1, 1000),
      rounds: whole('--rounds', values.rounds, 3, 1, 10),
      wrkThreads: whole('--wrk-threads', values['wrk-threads'], 1, 1, 16),
      rate: whole('--rate', values.rate, 1000, 1, 50_000),
      rateDuration: whole('--rate-duration', values['rate-duration'], 10, 1, 120),
    },
    replyKind: enumOption('--reply', values.reply, ['trivial', 'tools-list']) ?? 'trivial',
    jsonPath: values.json,
  };
});

const planned = settings.rounds * 2 * (settings.duration + 1) + 2 * settings.rateDuration + 120;
setTimeout(() => {
  console.error(`error: the benchmark did not finish within ${planned * 1.5} s; stopping`);
  killAllChildren();
  process.exit(2);
}, planned * 1500).unref();

// A benchmark that cannot run (wrk or k6 missing, a child that does not start) is no verdict: exit 2 through main().
await main({ usage: USAGE }, async () => {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const scenario = scenarioByName('tools-list')!;
  const problems: string[] = [];

  // --- 1. generator check ---
  const reference = await prepareLoadTarget({ kind: 'embedded', allowRemote: false, log });
  const toolsList = await fetch(reference.mcpUrl, { method: 'POST', headers: requestHeaders(reference.apiKey), body: JSON.stringify(scenario.requests[0]!.body) });
  if (toolsList.status !== 200) throw new Error(`tools/list answered ${toolsList.status}`);
  const trivialBody = JSON.stringify({ jsonrpc: '2.0', id: scenario.requests[0]!.body.id, result: { tools: [] } });
  const reply = replyKind === 'trivial'
    ? { status: 200, contentType: 'application/json', bodyBase64: Buffer.from(trivialBody).toString('base64') }
    : { status: 200, contentType: toolsList.headers.get('content-type') ?? '', bodyBase64: Buffer.from(await toolsList.arrayBuffer()).toString('base64') };

  const bare = await spawnServerChild({ name: 'bare server', script: join(ROOT, 'scripts/bench/bare-server.ts'), cwd: ROOT, reply });
  const bareUrl = `${bare.url}${MCP_PATH}`;
  // The bare server answers without looking at the key; a made-up one keeps the real one out of wrk's script.
  const headers = requestHeaders('bench_live_not-a-key');
  const body = JSON.stringify(scenario.requests[0]!.body);

  async function ours(duration: number) {
    const result = await runScenario({ mcpUrl: bareUrl, apiKey: 'bench_live_not-a-key' }, scenario, {
      durationS: duration, connections: settings.connections, maxRequests: 2_000_000, timeoutS: 10, progress: false,
    }).result;
    if (result.errors > 0) problems.push(`autocannon runner: ${result.errors} errors against the bare server`);
    return result;
  }
  async function theirs(duration: number): Promise<WrkResult> {
    const result = await runWrk({ url: bareUrl, headers, body, connections: settings.connections, threads: settings.wrkThreads, duration });
    if (result.non2xx3xx + result.socketErrors > 0) problems.push(`wrk: ${result.non2xx3xx} non-2xx, ${result.socketErrors} socket errors`);
    return result;
  }

  const rounds: { round: number; autocannon: number; wrk: number; autocannonP99: number; wrkP99: number }[] = [];
  let wrkVersion = '';
  for (let round = 1; round <= settings.rounds; round++) {
    const order = round % 2 ? ['wrk', 'autocannon'] : ['autocannon', 'wrk'];
    const row = { round, autocannon: 0, wrk: 0, autocannonP99: 0, wrkP99: 0 };
    for (const engine of order) {
      if (engine === 'wrk') {
        await theirs(1);
        const r = await theirs(settings.duration);
        wrkVersion = r.version;
        row.wrk = r.reqPerSec;
        row.wrkP99 = r.latencyMs.p99;
      } else {
        await ours(1);
        const r = await ours(settings.duration);
        row.autocannon = r.requestsPerSecond;
        row.autocannonP99 = r.latencyMs.p99;
      }
    }
    log(`round ${round}: wrk ${int(row.wrk)} req/s, autocannon runner ${int(row.autocannon)} req/s (${fixed(row.autocannon / row.wrk, 2)})`);
    rounds.push(row);
  }
  await bare.stop();
  const ratio = median(rounds.map((r) => r.autocannon)) / median(rounds.map((r) => r.wrk));

  // --- 2. reference tools/list at a fixed arrival rate ---
  const fixedRate: { engine: string; offered: number; achieved: number; p50: number; p99: number; max: number; errors: number; dropped?: number }[] = [];
  {
    await runScenario(reference, scenario, { durationS: 1, connections: settings.connections, maxRequests: 2_000_000, timeoutS: 10, progress: false }).result;
    const r = await runScenario(reference, scenario, {
      durationS: settings.rateDuration, connections: settings.connections, rate: settings.rate, maxRequests: 2_000_000, timeoutS: 10, progress: false,
    }).result;
    fixedRate.push({ engine: 'autocannon', offered: settings.rate, achieved: r.requestsPerSecond, p50: r.latencyMs.p50, p99: r.latencyMs.p99, max: r.latencyMs.max, errors: r.errors });
    log(`autocannon at ${settings.rate}/s: ${fixed(r.requestsPerSecond, 1)} req/s, p99 ${fixed(r.latencyMs.p99, 2)} ms, ${r.errors} errors`);
  }
  {
    const k6 = await new Promise<string>((resolve, reject) => {
      execFile('bash', [join(ROOT, 'scripts/install-k6.sh')], { cwd: ROOT }, (err, stdout) => (err ? reject(err) : resolve(stdout.trim().split('\n').pop()!)));
    });
    const dir = mkdtempSync(join(tmpdir(), 'bench-k6-'));
    try {
      await new Promise<void>((resolve, reject) => {
        execFile(k6, ['run', '--quiet', '--address', '', join(ROOT, 'load/k6/stateless-post.ts')], {
          cwd: ROOT,
          timeout: (settings.rateDuration + 60) * 1000,
          env: {
            PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', K6_NO_USAGE_REPORT: 'true',
            MCP_BASE_URL: reference.baseUrl, MCP_API_KEY: reference.apiKey, LOAD_SCENARIO: 'tools-list',
            LOAD_RATE: String(settings.rate), LOAD_DURATION: String(settings.rateDuration), LOAD_TARGET_KIND: 'embedded', SUMMARY_DIR: dir,
          },
        }, (err) => (err && (err as { code?: number }).code !== 99 ? reject(err) : resolve()));
      });
      const k6Report = JSON.parse(readFileSync(join(dir, 'load-k6.json'), 'utf8')) as {
        scenarios: { requestsPerSecond: number; latencyMs: { p50: number; p99: number; max: number }; errors: number; droppedIterations?: number }[];
      };
      const s = k6Report.scenarios[0]!;
      fixedRate.push({ engine: 'k6', offered: settings.rate, achieved: s.requestsPerSecond, p50: s.latencyMs.p50, p99: s.latencyMs.p99, max: s.latencyMs.max, errors: s.errors, ...(s.droppedIterations !== undefined && { dropped: s.droppedIterations }) });
      log(`k6 at ${settings.rate}/s: ${fixed(s.requestsPerSecond, 1)} req/s, p99 ${fixed(s.latencyMs.p99, 2)} ms, ${s.errors} errors`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  await reference.close();
  for (const r of fixedRate) if (r.errors > 0) problems.push(`${r.engine} at a fixed rate: ${r.errors} errors`);

  // --- report ---
  const autocannonVersion = (createRequire(import.meta.url)('autocannon/package.json') as { version: string }).version;
  const machine = `${cpus().length} cores, ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`;
  console.log([
    'Load generators and the reference server (127.0.0.1, one run)',
    `machine   ${machine}`,
    `tools     autocannon ${autocannonVersion} (our runner, every reply judged), ${wrkVersion.split(' Copyright')[0]} (${settings.wrkThreads} thread${settings.wrkThreads > 1 ? 's' : ''}), k6 (load/k6/stateless-post.ts)`,
    '',
    `1. generator check: bare server answering ${replyKind === 'trivial' ? `a ${trivialBody.length}-byte JSON-RPC result` : `the reference's tools/list reply (${Buffer.from(reply.bodyBase64, 'base64').length} bytes)`}, ${settings.connections} connections, ${settings.duration} s per run after a 1 s warm-up`,
    renderTable(['round', 'wrk req/s', 'runner req/s', 'ratio', 'wrk p99 ms', 'runner p99 ms'], rounds.map((r) => [
      String(r.round), int(r.wrk), int(r.autocannon), fixed(r.autocannon / r.wrk, 2), fixed(r.wrkP99, 2), fixed(r.autocannonP99, 2),
    ])),
    `ratio of medians: ${fixed(ratio, 2)} (target >= ${TARGET}: ${ratio >= TARGET ? 'met' : 'NOT MET'})`,
    '',
    `2. reference server, stateless tools/list at ${settings.rate} req/s for ${settings.rateDuration} s`,
    renderTable(['engine', 'offered/s', 'achieved/s', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'dropped'], fixedRate.map((r) => [
      r.engine, int(r.offered), fixed(r.achieved, 1), fixed(r.p50, 2), fixed(r.p99, 2), fixed(r.max, 2), int(r.errors), r.dropped === undefined ? '-' : int(r.dropped),
    ]), ['l']),
    ...problems.map((p) => `problem: ${p}`),
  ].join('\n'));
  if (jsonPath) writeFileSync(jsonPath, `${JSON.stringify({ machine, settings, rounds, ratio, target: TARGET, fixedRate, problems }, null, 2)}\n`);
  return ratio >= TARGET && problems.length === 0 ? 0 : 1;
});
