/**
 * Throughput of MCP `tools/list` on the reference server against a bare `node:http` server that
 * answers every POST with the very bytes (status, content-type, body) the reference server returned.
 * Target: the reference server reaches at least half the bare server's throughput.
 *
 * One run, loopback only: each server runs in its own child process, autocannon (programmatic API)
 * drives them from this process, alternately, for N rounds with a warm-up before every measured run.
 * Exit status: see USAGE (130 when interrupted).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire, type SourceMapPayload } from 'node:module';
import { cpus, platform, arch, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseCommandLine } from '../src/kit/command-line.js';
import { exitStatus, main, readCommandLine } from '../src/kit/main.js';
import { numberOption, UsageError } from '../src/kit/options.js';
import { summarizeProfile, type CpuProfile, type ProfileSummary } from './bench/cpuprofile-summary.js';
import { runLoad, type LoadResult, type LoadSpec } from './bench/load.js';
import { killAllChildren, spawnServerChild, type ServerChild } from '../src/kit/server-child.js';
import type { CannedReply } from '../src/kit/child-protocol.js';
import { systemCpu } from './bench/system-cpu.js';
import { fixed, int, pct, renderTable } from './bench/table.js';
import { PACKAGE_ROOT } from '../src/kit/package-root.js';

const TARGET = 0.5;
const WARMUP_S = 1;

const USAGE = `Usage: npm run bench:reference -- [--duration <s>] [--connections <n>] [--rounds <n>] [--json <file>] [--cpu-prof <dir>]

Measures MCP tools/list throughput of the reference server and of a bare node:http server replaying
the same reply bytes, on 127.0.0.1, and checks reference/bare >= ${TARGET}.
  --duration     seconds per measured run, after a 1 s warm-up (default 5, at most 60)
  --connections  concurrent keep-alive connections (default 32, at most 1000)
  --rounds       rounds; each measures both servers, order alternating (default 3, at most 20)
  --json         also write the numbers to this file
  --cpu-prof     instead: profile the reference server child (node --cpu-prof) under the same load
                 for one run, write the profile to this directory and print self time by function

${exitStatus('valid and target met', 'target missed or run invalid (any non-2xx or error reply)', 'a benchmark that does not finish')}`;

const ROOT = PACKAGE_ROOT;
const MCP_PATH = '/api/mcp/v1';
const TOOLS_LIST = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';

const { settings, jsonPath, profileDir } = readCommandLine({ usage: USAGE }, () => {
  const { values } = parseCommandLine(USAGE, {
    duration: { type: 'string' }, connections: { type: 'string' }, rounds: { type: 'string' },
    json: { type: 'string' }, 'cpu-prof': { type: 'string' },
  });
  if (values['cpu-prof'] === '') throw new UsageError('--cpu-prof needs a directory');
  return {
    settings: {
      duration: numberOption('--duration', values.duration, { min: 1, max: 60, unit: 'seconds', fallback: 5 }),
      connections: numberOption('--connections', values.connections, { integer: true, min: 1, max: 1000, fallback: 32 }),
      rounds: numberOption('--rounds', values.rounds, { integer: true, min: 1, max: 20, fallback: 3 }),
      warmup: WARMUP_S,
    },
    jsonPath: values.json,
    profileDir: values['cpu-prof'] === undefined ? undefined : resolve(values['cpu-prof']),
  };
});

// Every run is bounded: a watchdog ends the whole benchmark well after its planned length.
const plannedS = profileDir ? settings.warmup + settings.duration : settings.rounds * 2 * (settings.warmup + settings.duration);
const watchdog = setTimeout(() => {
  console.error(`error: the benchmark did not finish within ${Math.round(plannedS * 1.5 + 90)} s; stopping`);
  killAllChildren();
  process.exit(2);
}, (plannedS * 1.5 + 90) * 1000);
watchdog.unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping`);
    killAllChildren();
    process.exit(130);
  });
}

const cpuList = cpus();
const machine = {
  cores: cpuList.length,
  cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
  node: process.version,
  platform: `${platform()} ${arch()}`,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
};

const autocannonVersion = (createRequire(import.meta.url)('autocannon/package.json') as { version: string }).version;

const progress = (line: string) => process.stderr.write(`${line}\n`);

// --- HTTP helpers (the key stays in memory: never printed, never written) ---

interface Reply { status: number; contentType: string; body: Buffer }

async function post(url: string, headers: Record<string, string>, body: string): Promise<Reply> {
  const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()) };
}

const sameReply = (a: Reply, b: Reply) => a.status === b.status && a.contentType === b.contentType && a.body.equals(b.body);
const describe = (r: Reply) => `${r.status} ${r.contentType || '(no content-type)'}, ${int(r.body.length)} bytes`;

async function bootstrapKey(baseUrl: string): Promise<string> {
  const res = await post(`${baseUrl}/api/agent/bootstrap`, { 'content-type': 'application/json' }, JSON.stringify({
    humanEmail: 'bench@example.com', agentName: 'bench-reference', workspaceName: 'bench', canvasName: 'bench',
  }));
  if (res.status !== 201) throw new Error(`bootstrap answered ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
  const apiKey = (JSON.parse(res.body.toString('utf8')) as { apiKey?: unknown }).apiKey;
  if (typeof apiKey !== 'string' || apiKey === '') throw new Error('bootstrap answered 201 without an apiKey');
  return apiKey;
}

function mcpHeaders(apiKey: string): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${apiKey}` };
}

/** tools/list from the reference server, twice: the bare server can only replay a reply that does not vary. */
async function referenceReply(mcpUrl: string, headers: Record<string, string>): Promise<Reply> {
  const first = await post(mcpUrl, headers, TOOLS_LIST);
  if (first.status !== 200 || !first.contentType.startsWith('application/json')) {
    throw new Error(`tools/list answered ${describe(first)}: ${first.body.toString('utf8').slice(0, 300)}`);
  }
  const second = await post(mcpUrl, headers, TOOLS_LIST);
  if (!sameReply(first, second)) throw new Error(`two tools/list replies differ (${describe(first)} vs ${describe(second)}): nothing fixed to replay`);
  return first;
}

// --- runs ---

type ServerName = 'reference' | 'bare';
interface Measured extends LoadResult {
  server: ServerName;
  round: number;
  serverCpuMicros: number;
  serverCpuShare: number;
  generatorCpuShare: number;
  /** CPU used by everything else on the machine during the run (Linux /proc/stat), share of one core. */
  otherCpuShare?: number;
  /** Time the hypervisor gave to other guests while this VM wanted to run, share of one core. */
  stealShare?: number;
  warmup: { reqPerSec: number; problems: string[] };
}

async function measure(child: ServerChild, server: ServerName, round: number, spec: Omit<LoadSpec, 'duration' | 'url'>): Promise<Measured> {
  const url = `${child.url}${MCP_PATH}`;
  const warm = await runLoad({ ...spec, url, duration: settings.warmup });
  const cpu0 = await child.cpuMicros();
  const sys0 = systemCpu();
  const run = await runLoad({ ...spec, url, duration: settings.duration });
  const sys1 = systemCpu();
  const serverCpuMicros = (await child.cpuMicros()) - cpu0;
  const wallMicros = run.durationS * 1e6;
  const other = sys0 && sys1 ? Math.max(0, sys1.busyMicros - sys0.busyMicros - serverCpuMicros - run.generatorCpuMicros) : undefined;
  return {
    ...(other !== undefined && { otherCpuShare: other / wallMicros, stealShare: (sys1!.stealMicros - sys0!.stealMicros) / wallMicros }),
    ...run,
    problems: [...warm.problems.map((p) => `warm-up: ${p}`), ...run.problems],
    server,
    round,
    serverCpuMicros,
    serverCpuShare: serverCpuMicros / wallMicros,
    generatorCpuShare: run.generatorCpuMicros / wallMicros,
    warmup: { reqPerSec: warm.reqPerSec, problems: warm.problems },
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const ms = (v: number) => fixed(v, 2);

function header(reply: Reply | undefined): string {
  return [
    'MCP tools/list throughput: reference server vs bare node:http replaying the same reply (127.0.0.1)',
    `machine   ${machine.cores} cores, ${machine.cpuModel}, ${machine.memoryGiB} GiB, node ${machine.node} (${machine.platform})`,
    `settings  ${settings.connections} connections, ${settings.warmup} s warm-up + ${settings.duration} s measured per run, `
      + (profileDir ? 'reference server only, profiled' : `${settings.rounds} ${settings.rounds === 1 ? "round" : "rounds alternating the order"}`),
    `load      autocannon ${autocannonVersion} in this process (programmatic API); each server in its own child process`,
    ...(reply ? [`reply     ${describe(reply)}${profileDir ? '' : '; the bare server sends the same status, content-type and body (the reference adds RateLimit headers)'}`] : []),
  ].join('\n');
}

// --- main ---

const children: ServerChild[] = [];
async function stopChildren(): Promise<void> {
  await Promise.all(children.splice(0).map((c) => c.stop()));
}

/**
 * How the reference server is run in production (`npm run reference`, the Dockerfile): a larger young
 * generation, because a fresh MCP server per POST allocates much short-lived garbage. Both children get
 * the same flags, so the comparison stays like for like.
 */
const SERVER_NODE_FLAGS = ['--max-semi-space-size=32'];

async function startReference(extraNodeArgs: string[] = [], args: string[] = []): Promise<ServerChild> {
  const child = await spawnServerChild({
    name: 'reference server', script: join(ROOT, 'scripts/bench/reference-server.ts'), cwd: ROOT, nodeArgs: [...SERVER_NODE_FLAGS, ...extraNodeArgs], args,
  });
  children.push(child);
  return child;
}

async function benchmark(): Promise<number> {
  progress('starting the reference server child...');
  const reference = await startReference();
  const headers = mcpHeaders(await bootstrapKey(reference.url));
  const reply = await referenceReply(`${reference.url}${MCP_PATH}`, headers);
  const canned: CannedReply = { status: reply.status, contentType: reply.contentType, bodyBase64: reply.body.toString('base64') };
  progress('starting the bare server child...');
  const bare = await spawnServerChild({ name: 'bare server', script: join(ROOT, 'scripts/bench/bare-server.ts'), cwd: ROOT, nodeArgs: SERVER_NODE_FLAGS, reply: canned });
  children.push(bare);
  const bareReply = await post(`${bare.url}${MCP_PATH}`, headers, TOOLS_LIST);
  if (!sameReply(reply, bareReply)) throw new Error(`the bare server's reply (${describe(bareReply)}) differs from the reference's (${describe(reply)})`);

  console.log(header(reply));
  const spec = { headers, body: TOOLS_LIST, connections: settings.connections };
  const runs: Measured[] = [];
  const problems: string[] = [];
  rounds: for (let round = 1; round <= settings.rounds; round++) {
    const order: ServerName[] = round % 2 === 1 ? ['reference', 'bare'] : ['bare', 'reference'];
    for (const name of order) {
      progress(`round ${round}/${settings.rounds}: ${name} (${settings.warmup} s warm-up, ${settings.duration} s measured)`);
      const run = await measure(name === 'reference' ? reference : bare, name, round, spec);
      runs.push(run);
      for (const p of run.problems) problems.push(`round ${round} ${name}: ${p}`);
      if (problems.length > 0) break rounds;
    }
  }
  // The replies must not have drifted during the load.
  if (problems.length === 0) {
    const [refAfter, bareAfter] = await Promise.all([post(`${reference.url}${MCP_PATH}`, headers, TOOLS_LIST), post(`${bare.url}${MCP_PATH}`, headers, TOOLS_LIST)]);
    if (!sameReply(reply, refAfter)) problems.push(`after the runs the reference server answers ${describe(refAfter)}, not the reply measured`);
    if (!sameReply(reply, bareAfter)) problems.push(`after the runs the bare server answers ${describe(bareAfter)}, not the reply measured`);
  }
  await stopChildren();

  // Table: one row per run, ratio on the second run of each round, then medians.
  const of = (name: ServerName) => runs.filter((r) => r.server === name);
  const ratios: number[] = [];
  const rows: (string[] | 'sep')[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    const inRound = runs.filter((r) => r.round === round);
    const ref = inRound.find((r) => r.server === 'reference');
    const bareRun = inRound.find((r) => r.server === 'bare');
    const ratio = ref && bareRun && bareRun.reqPerSec > 0 ? ref.reqPerSec / bareRun.reqPerSec : undefined;
    if (ratio !== undefined) ratios.push(ratio);
    inRound.forEach((r, i) => rows.push([
      String(round), r.server, int(r.reqPerSec), ms(r.latencyMs.p50), ms(r.latencyMs.p99), int(r.requests),
      int(r.non2xx), int(r.errors), pct(r.serverCpuShare), pct(r.generatorCpuShare), r.otherCpuShare === undefined ? 'n/a' : pct(r.otherCpuShare),
      i === inRound.length - 1 && ratio !== undefined ? fixed(ratio, 3) : '',
    ]));
  }
  const medians = (['reference', 'bare'] as const).map((name) => {
    const rs = of(name);
    return {
      server: name,
      reqPerSec: rs.length ? median(rs.map((r) => r.reqPerSec)) : 0,
      p50Ms: rs.length ? median(rs.map((r) => r.latencyMs.p50)) : 0,
      p99Ms: rs.length ? median(rs.map((r) => r.latencyMs.p99)) : 0,
      serverCpuShare: rs.length ? median(rs.map((r) => r.serverCpuShare)) : 0,
      generatorCpuShare: rs.length ? median(rs.map((r) => r.generatorCpuShare)) : 0,
      otherCpuShare: rs.length && rs.every((r) => r.otherCpuShare !== undefined) ? median(rs.map((r) => r.otherCpuShare!)) : undefined,
      non2xx: rs.reduce((s, r) => s + r.non2xx, 0),
      errors: rs.reduce((s, r) => s + r.errors, 0),
      requests: rs.reduce((s, r) => s + r.requests, 0),
    };
  });
  const medianRatio = ratios.length ? median(ratios) : undefined;
  rows.push('sep');
  medians.forEach((m, i) => rows.push([
    'median', m.server, int(m.reqPerSec), ms(m.p50Ms), ms(m.p99Ms), `Σ ${int(m.requests)}`, `Σ ${int(m.non2xx)}`, `Σ ${int(m.errors)}`,
    pct(m.serverCpuShare), pct(m.generatorCpuShare), m.otherCpuShare === undefined ? 'n/a' : pct(m.otherCpuShare), i === 1 && medianRatio !== undefined ? fixed(medianRatio, 3) : '',
  ]));
  console.log('');
  console.log(renderTable(
    ['Round', 'Server', 'Req/Sec', 'p50 ms', 'p99 ms', 'Requests', 'Non-2xx', 'Errors', 'Server CPU', 'Gen CPU', 'Other CPU', 'Ref/Bare'],
    rows,
    ['l', 'l'],
  ));
  console.log('Req/Sec = responses / measured seconds; latency percentiles from each response\'s hrtime (autocannon\'s own are whole ms);');
  console.log('CPU = CPU time / run time, 100% = one core (V8 helper threads can pass it): the server child, this process (the load generator),');
  console.log('and every other process on the machine (/proc/stat); Ref/Bare = that round\'s ratio, the median of the rounds at the bottom.');

  const valid = problems.length === 0 && medianRatio !== undefined;
  const met = valid && medianRatio >= TARGET;
  const bareMedian = medians[1]!;
  const notes: string[] = [];
  if (valid && bareMedian.generatorCpuShare >= 0.9 && bareMedian.serverCpuShare < 0.9) {
    notes.push(`note: during the bare runs the generator used ${pct(bareMedian.generatorCpuShare)} of a core and the bare server ${pct(bareMedian.serverCpuShare)}: `
      + 'the bare figure is capped by the generator, so the real ceiling is higher and the ratio overstates the reference server.');
  }
  const bareBusy = bareMedian.serverCpuShare + bareMedian.generatorCpuShare;
  if (valid && bareBusy >= 0.8 * machine.cores) {
    notes.push(`note: in the bare runs the server and the generator together kept ${pct(bareBusy / machine.cores)} of the ${machine.cores} cores busy: `
      + 'the bare figure is a ceiling of this machine with this generator as much as of node:http.');
  }
  const others = runs.map((r) => r.otherCpuShare).filter((v): v is number => v !== undefined);
  const otherMax = others.length ? Math.max(...others) : 0;
  if (otherMax >= 0.5) {
    notes.push(`WARNING: other processes on this machine used up to ${pct(otherMax)} of a core during the runs: with ${machine.cores} cores they take `
      + 'CPU from the servers and the generator, unevenly from run to run; do not trust these numbers, rerun on a quiet machine.');
  } else if (otherMax >= 0.1) {
    notes.push(`note: other processes on this machine used up to ${pct(otherMax)} of a core during the runs, which adds noise.`);
  }
  const steals = runs.map((r) => r.stealShare).filter((v): v is number => v !== undefined);
  if (steals.length && Math.max(...steals) >= 0.05) {
    notes.push(`note: the hypervisor withheld up to ${pct(Math.max(...steals))} of a core (steal time) during the runs.`);
  }
  console.log('');
  for (const n of notes) console.log(n);
  if (!valid) {
    console.log('INVALID RUN: the numbers above do not count.');
    for (const p of problems) console.log(`  ${p}`);
  } else {
    const spread = `rounds ${ratios.map((r) => fixed(r, 3)).join(', ')}`;
    console.log(`target    reference >= ${TARGET} x bare throughput`);
    console.log(`result    median ratio ${fixed(medianRatio, 3)} (${spread}): ${int(medians[0]!.reqPerSec)} vs ${int(bareMedian.reqPerSec)} req/s`);
    console.log(met
      ? `TARGET MET: the reference server reaches ${pct(medianRatio)} of the bare server's throughput.`
      : `TARGET NOT MET: the reference server reaches only ${pct(medianRatio)} of the bare server's throughput (needs ${pct(TARGET)}).`);
  }

  if (jsonPath) {
    writeJson(jsonPath, {
      kind: 'bench-reference', target: { ratio: TARGET }, valid, met, medianRatio: medianRatio ?? null, ratios, problems,
      machine, settings, reply: { status: reply.status, contentType: reply.contentType, bytes: reply.body.length },
      medians, runs,
    });
  }
  return met ? 0 : 1;
}

/** --cpu-prof: the reference server alone under the benchmark's load, profiled by node --cpu-prof. */
async function profile(dir: string): Promise<number> {
  mkdirSync(dir, { recursive: true });
  const mapsFile = join(dir, 'reference-server.sourcemaps.json');
  progress('starting the reference server child with --cpu-prof...');
  const reference = await startReference([`--cpu-prof`, `--cpu-prof-dir=${dir}`], ['--sourcemaps', mapsFile]);
  const headers = mcpHeaders(await bootstrapKey(reference.url));
  const reply = await referenceReply(`${reference.url}${MCP_PATH}`, headers);
  console.log(header(reply));
  const spec = { url: `${reference.url}${MCP_PATH}`, headers, body: TOOLS_LIST, connections: settings.connections };
  progress(`warm-up ${settings.warmup} s, then ${settings.duration} s measured and profiled`);
  const warm = await runLoad({ ...spec, duration: settings.warmup });
  const cpu0 = await reference.cpuMicros();
  const sys0 = systemCpu();
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  const run = await runLoad({ ...spec, duration: settings.duration });
  const toUs = Number(process.hrtime.bigint() / 1000n);
  const sys1 = systemCpu();
  const serverCpuMicros = (await reference.cpuMicros()) - cpu0;
  const wallMicros = run.durationS * 1e6;
  const otherCpuShare = sys0 && sys1 ? Math.max(0, sys1.busyMicros - sys0.busyMicros - serverCpuMicros - run.generatorCpuMicros) / wallMicros : undefined;
  const pid = reference.pid;
  await stopChildren();

  const problems = [...warm.problems.map((p) => `warm-up: ${p}`), ...run.problems];
  console.log('');
  console.log(`run       ${int(run.reqPerSec)} req/s under the profiler, p50 ${ms(run.latencyMs.p50)} ms, p99 ${ms(run.latencyMs.p99)} ms, `
    + `${int(run.non2xx)} non-2xx, ${int(run.errors)} errors (profiling slows the server: not a throughput figure)`);
  console.log(`cpu       server ${pct(serverCpuMicros / wallMicros)}, generator ${pct(run.generatorCpuMicros / wallMicros)}, `
    + `other processes ${otherCpuShare === undefined ? 'n/a' : pct(otherCpuShare)} of a core`);
  // Main thread profile of the child: CPU.<date>.<time>.<pid>.0.<seq>.cpuprofile
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.0.`));
  if (!file) throw new Error(`no main-thread profile of pid ${pid} in ${dir}`);
  const cpuProfile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  let sourceMaps: Record<string, SourceMapPayload> | undefined;
  try {
    sourceMaps = JSON.parse(readFileSync(mapsFile, 'utf8')) as Record<string, SourceMapPayload>;
  } catch {
    console.log('(no source maps written: TypeScript lines are those of the compiled code)');
  }
  // The profile's clock is the monotonic clock process.hrtime also reads: keep the measured run only.
  const inProfile = fromUs >= cpuProfile.startTime && toUs <= cpuProfile.endTime;
  console.log(`profile   ${join(dir, file)}`);
  console.log(inProfile ? 'samples   the measured run only (startup, bootstrap and warm-up left out)' : 'samples   the whole profile (the run window did not fall within the profile clock)');
  const summary: ProfileSummary = summarizeProfile(cpuProfile, {
    root: ROOT, top: 25, ...(inProfile && { requests: run.requests }), ...(sourceMaps && { sourceMaps }), ...(inProfile && { window: { fromUs, toUs } }),
  });
  console.log(summary.text);
  if (problems.length) {
    console.log('\nINVALID RUN:');
    for (const p of problems) console.log(`  ${p}`);
  }
  if (jsonPath) {
    const { text: _text, ...numbers } = summary;
    writeJson(jsonPath, { kind: 'bench-reference-profile', valid: problems.length === 0, problems, machine, settings, profile: join(dir, file), window: inProfile ? { fromUs, toUs } : null,
      run: { ...run, serverCpuShare: serverCpuMicros / wallMicros, generatorCpuShare: run.generatorCpuMicros / wallMicros, otherCpuShare: otherCpuShare ?? null }, summary: numbers });
  }
  return problems.length ? 1 : 0;
}

function writeJson(path: string, data: unknown): void {
  writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
  console.log(`numbers written to ${path}`);
}

// A benchmark that cannot run (a child that does not start, a reply that cannot be replayed) is no verdict: exit 2.
await main({ usage: USAGE }, async () => {
  try {
    return profileDir ? await profile(profileDir) : await benchmark();
  } finally {
    await stopChildren();
  }
});
