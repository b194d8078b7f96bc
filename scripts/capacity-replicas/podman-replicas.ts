/**
 * One setup of the scaling recipe, started with podman: N reference replicas sharing one SQLite file on a
 * volume, behind the project's round-robin balancer, each replica under the same CPU quota: docker-compose.yml's
 * replica-a/replica-b/balancer/smtp, with the same image and commands, run with `podman run` (podman-compose
 * has no CPU quota we could rely on, and a run of our own names its containers so that two runs never meet).
 * The one addition to the compose commands is `--config`: bootstrapped workspaces without a rate limit, as the
 * load target's UNTHROTTLED, so that the search measures the replicas and not the bootstrap plan.
 * Everything a run starts carries its label; `removeRun` and `removeRunSync` (exit, signals) remove by it.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ConfigOverrides } from '../../service/reference-server/config.js';
import { freePort } from '../../src/kit/free-port.js';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';
import { residentBytes } from '../../load/target.js';

const run = promisify(execFile);
export const RUN_LABEL = 'org.canvas-harness.capacity-replicas';
const CONFIG_DIR = '/etc/capacity-replicas';
/** /proc/<pid>/stat counts CPU in USER_HZ ticks, 100 per second on every Linux ABI. */
const TICK_MICROS = 10_000;

export function podmanEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, CONTAINERS_CONF: env.CONTAINERS_CONF ?? join(PACKAGE_ROOT, '.tools/containers/containers.conf') };
}

/** podman with the project's runtime; rejects with podman's own last line, never a command line with a secret (none is passed). */
export async function podman(args: string[], timeoutMs = 60_000): Promise<string> {
  try {
    const { stdout } = await run('podman', ['--runtime', 'runc', ...args], { env: podmanEnv(), timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    return stdout.trim();
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    const why = (e.stderr ?? '').trim().split('\n').at(-1) || e.message;
    throw new Error(`podman ${args[0]} failed: ${why}`);
  }
}

export interface ReplicaSetOptions {
  image: string;
  replicas: number;
  /** The CPU quota of each replica, in cores: a CFS quota of cpus x period in every period. */
  cpus: number;
  /** The CFS period, µs: 100000 is what `--cpus` and compose's `cpus` give. */
  cpuPeriodUs: number;
  /** Reference configuration written to a file every replica reads (`--config`). */
  config: ConfigOverrides;
  /** Names and labels this run's containers, network and volume. */
  runId: string;
  log: (line: string) => void;
  readyTimeoutMs?: number;
}

export interface ReplicaSet {
  /** The balancer, published on 127.0.0.1 only. */
  baseUrl: string;
  /** The replicas' CPU time so far (µs, summed) and resident memory (bytes, summed), read from /proc on this host. */
  serverStats(): Promise<{ cpuMicros?: number; rssBytes?: number }>;
  close(): Promise<void>;
}

const replicaName = (i: number) => `replica-${String.fromCharCode(97 + i)}`;

/**
 * Starts the smtp sink, the replicas (one after another: the first creates the SQLite file's tables) and the
 * balancer on a network of the run's own, and waits until the balancer has answered /healthz through every
 * replica. On any failure what was started is removed before the error is thrown.
 */
export async function startReplicaSet(o: ReplicaSetOptions): Promise<ReplicaSet> {
  const prefix = `${o.runId}-${o.replicas}r`;
  const network = `${prefix}-net`;
  const volume = `${prefix}-data`;
  const label = ['--label', `${RUN_LABEL}=${o.runId}`];
  const configDir = mkdtempSync(join(tmpdir(), 'capacity-replicas-'));
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      try {
        await removeSet(prefix, o.runId);
      } finally {
        rmSync(configDir, { recursive: true, force: true });
      }
    })();
    return closed;
  };
  try {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    // Readable by the image's `node` user (uid 1000): mkdtemp makes the folder 0700.
    writeFileSync(join(configDir, 'reference.json'), JSON.stringify(o.config));
    chmodSync(configDir, 0o755);
    chmodSync(join(configDir, 'reference.json'), 0o644);
    await podman(['network', 'create', ...label, network]);
    await podman(['volume', 'create', ...label, volume]);
    const on = (alias: string) => ['--network', network, '--network-alias', alias, ...label];
    await podman(['run', '-d', '--name', `${prefix}-smtp`, ...on('smtp'), o.image,
      'node', 'dist/service/smtp-sink/main.js', '--host', '0.0.0.0', '--smtp-port', '2525', '--http-port', '8025']);
    const replicas: string[] = [];
    for (let i = 0; i < o.replicas; i++) {
      const name = `${prefix}-${replicaName(i)}`;
      await podman(['run', '-d', '--name', name, ...on(replicaName(i)), '--cpu-period', String(o.cpuPeriodUs), '--cpu-quota', String(Math.round(o.cpus * o.cpuPeriodUs)),
        '-v', `${volume}:/data`, '-v', `${configDir}:${CONFIG_DIR}:ro`, '-e', `PUBLIC_BASE_URL=${baseUrl}`, o.image,
        'node', '--max-semi-space-size=32', 'dist/service/reference-server/main.js', '--host', '0.0.0.0', '--port', '8080',
        '--db', '/data/canvas.db', '--smtp', 'smtp://smtp:2525', '--config', `${CONFIG_DIR}/reference.json`]);
      replicas.push(name);
    }
    await podman(['run', '-d', '--name', `${prefix}-balancer`, ...on('balancer'), '-p', `127.0.0.1:${port}:8080`, o.image,
      'node', 'dist/service/reference-server/balancer.js', '--host', '0.0.0.0', '--port', '8080',
      ...replicas.flatMap((_, i) => ['--upstream', `http://${replicaName(i)}:8080`])]);
    await waitReady(baseUrl, o.replicas, prefix, o.readyTimeoutMs ?? 90_000);
    const pids = await Promise.all(replicas.map(async (name) => Number(await podman(['inspect', '--format', '{{.State.Pid}}', name]))));
    o.log(`${o.replicas} replica${o.replicas > 1 ? 's' : ''} (${o.cpus} cores each, CFS period ${o.cpuPeriodUs / 1000} ms) behind the balancer at ${baseUrl}`);
    return { baseUrl, serverStats: async () => replicaStats(pids), close };
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}

/** The balancer answers /healthz 2N times in a row (round-robin: every replica twice), or an error with the reason. */
async function waitReady(baseUrl: string, replicas: number, prefix: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let inARow = 0;
  let last = 'no answer yet';
  while (inARow < 2 * replicas) {
    const status = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(5_000) }).then((r) => r.status, (e: Error) => e.message);
    if (status === 200) inARow++;
    else {
      inARow = 0;
      last = String(status);
    }
    if (inARow >= 2 * replicas) return;
    if (Date.now() > deadline) {
      const states = await podman(['ps', '-a', '--format', '{{.Names}} {{.Status}}', '--filter', `name=^${prefix}-`]).catch(() => '');
      throw new Error(`the balancer at ${baseUrl} did not answer /healthz through every replica within ${timeoutMs / 1000} s (last: ${last}; containers: ${states.split('\n').join(', ')})`);
    }
    if (inARow === 0) await new Promise((r) => setTimeout(r, 300));
  }
}

/** CPU and memory of the replicas' node processes (PID 1 in each container, seen from the host). */
function replicaStats(pids: number[]): { cpuMicros?: number; rssBytes?: number } {
  let cpuMicros = 0;
  let rssBytes = 0;
  for (const pid of pids) {
    try {
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\)\s+/s, '').split(' ');
      cpuMicros += (Number(fields[11]) + Number(fields[12])) * TICK_MICROS;
    } catch {
      return {}; // not this host's process table (a remote engine): nothing rather than a wrong number
    }
    rssBytes += residentBytes(pid).rssBytes ?? 0;
  }
  return { cpuMicros, rssBytes };
}

async function removeSet(prefix: string, runId: string): Promise<void> {
  const ids = (await podman(['ps', '-aq', '--filter', `label=${RUN_LABEL}=${runId}`, '--filter', `name=^${prefix}-`])).split('\n').filter(Boolean);
  if (ids.length > 0) await podman(['rm', '-f', '-t', '2', ...ids], 60_000);
  await podman(['network', 'rm', '-f', `${prefix}-net`]).catch(() => undefined);
  await podman(['volume', 'rm', '-f', `${prefix}-data`]).catch(() => undefined);
}

/** Everything a run left (a signal, a crash): synchronous, for the exit hook. */
export function removeRunSync(runId: string): void {
  const sync = (args: string[]) => execFileSync('podman', ['--runtime', 'runc', ...args], { env: podmanEnv(), timeout: 30_000, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  const filter = ['--filter', `label=${RUN_LABEL}=${runId}`];
  for (const [list, remove] of [
    [['ps', '-aq', ...filter], ['rm', '-f', '-t', '0']],
    [['network', 'ls', '-q', ...filter], ['network', 'rm', '-f']],
    [['volume', 'ls', '-q', ...filter], ['volume', 'rm', '-f']],
  ] as const) {
    try {
      const ids = sync([...list]).split('\n').filter(Boolean);
      if (ids.length > 0) sync([...remove, ...ids]);
    } catch {
      // best effort on the way out
    }
  }
}

/** What this run left behind, by label: containers, networks, volumes (the test asserts none). */
export async function leftovers(runId: string): Promise<string[]> {
  const filter = ['--filter', `label=${RUN_LABEL}=${runId}`];
  const lists = await Promise.all([['ps', '-aq'], ['network', 'ls', '-q'], ['volume', 'ls', '-q']].map((l) => podman([...l, ...filter])));
  return lists.flatMap((l) => l.split('\n').filter(Boolean));
}
