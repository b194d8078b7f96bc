/**
 * The container engine for one run. When DOCKER_HOST names an engine of the user's own (anything but
 * the default podman socket), or an engine already answers on the default socket, that engine is used
 * and nothing is stopped afterwards. Otherwise, when podman is installed, podman's Docker-compatible
 * API service is started for the run on the default socket (scripts/podman-socket.sh, with
 * CONTAINERS_CONF as scripts/setup.sh writes it), and `stop` stops it again: only what this module
 * started, once, also when the process exits without calling it.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { delimiter, join } from 'node:path';
import { TargetError } from './target.js';
import { PACKAGE_ROOT } from '../kit/package-root.js';

const ROOT = PACKAGE_ROOT;
const SCRIPT = join(ROOT, 'scripts', 'podman-socket.sh');

export const CONTAINER_SETUP_HINT = 'Prepare the machine first (as root): scripts/setup-containers.sh && scripts/build-base-image.sh '
  + '(the run then starts podman\'s API service itself and stops it afterwards), '
  + 'or point DOCKER_HOST at a Docker engine and set BASE_IMAGE=node:20-bookworm-slim';

/** The socket the run starts podman's service on: PODMAN_SOCKET, default /tmp/podman.sock (as in scripts/podman-socket.sh). */
export function defaultPodmanSocket(env: NodeJS.ProcessEnv = process.env): string {
  return env.PODMAN_SOCKET || '/tmp/podman.sock';
}

/** The engine this process talks to: DOCKER_HOST, or podman's default socket when it is unset. */
export function engineAddress(env: NodeJS.ProcessEnv = process.env): string {
  return env.DOCKER_HOST || `unix://${defaultPodmanSocket(env)}`;
}

export type EngineDecision =
  | { action: 'use'; dockerHost: string; why: 'DOCKER_HOST elsewhere' | 'already answers' }
  | { action: 'start'; dockerHost: string; podman: string }
  | { action: 'fail'; message: string };

/** What to do, from what was found: pure, so that the choice can be tested without an engine. */
export function decideEngine(found: { dockerHost: string | undefined; defaultSocket: string; answers: boolean; podman: string | undefined }): EngineDecision {
  const ours = `unix://${found.defaultSocket}`;
  if (found.dockerHost && found.dockerHost !== ours) return { action: 'use', dockerHost: found.dockerHost, why: 'DOCKER_HOST elsewhere' };
  if (found.answers) return { action: 'use', dockerHost: ours, why: 'already answers' };
  if (found.podman) return { action: 'start', dockerHost: ours, podman: found.podman };
  return { action: 'fail', message: `no container engine answers on ${ours} and podman is not installed. ${CONTAINER_SETUP_HINT}` };
}

/**
 * How long an engine may take to answer before it counts as not answering. An absent engine refuses the
 * connection at once; a busy one (building an image beside a full test run) was measured taking 4 s for an
 * image inspect on a loaded 2-core machine, and one CI run failed on the old 5 s limit.
 */
export const ENGINE_PATIENCE_MS = 30_000;

/** GET on the engine's API over its unix socket: the status; rejects when nothing answers within `timeoutMs`. */
export function engineGet(socketPath: string, path: string, timeoutMs = ENGINE_PATIENCE_MS): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ socketPath, path, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end();
  });
}

/** GET /_ping on a unix socket: true when it answers 200 within `timeoutMs`. */
export function pingSocket(socketPath: string, timeoutMs = ENGINE_PATIENCE_MS): Promise<boolean> {
  return engineGet(socketPath, '/_ping', timeoutMs).then((status) => status === 200, () => false);
}

/** The podman executable on PATH (or in /usr/bin, /usr/local/bin), if any. */
export function findPodman(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = [...(env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/bin', '/usr/local/bin'];
  for (const dir of dirs) {
    const candidate = join(dir, 'podman');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function script(command: 'start' | 'stop', env: NodeJS.ProcessEnv, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('bash', [SCRIPT, command], { env, timeout: timeoutMs, cwd: ROOT }, (err, _stdout, stderr) => {
      if (err) reject(new Error(stderr.trim().split('\n').slice(-3).join(' ') || err.message));
      else resolve();
    });
  });
}

export interface ContainerEngine {
  /** The engine's address, for DOCKER_HOST. */
  dockerHost: string;
  /** True when this run started podman's service (and `stop` stops it). */
  started: boolean;
  /** Stops what this run started; nothing otherwise. Safe to call more than once. */
  stop(): Promise<void>;
}

export interface EngineDeps {
  ping(socketPath: string): Promise<boolean>;
  findPodman(): string | undefined;
  /** Starts the service on `socketPath` and resolves once it answers; returns the function that stops it. */
  startService(socketPath: string): Promise<{ stop(): Promise<void>; stopNow(): void }>;
}

/** Starts the service with scripts/podman-socket.sh (which waits up to 10 s for it to answer); stops it by its pid. */
async function startWithScript(socketPath: string, timeoutMs: number): Promise<{ stop(): Promise<void>; stopNow(): void }> {
  const env = { ...process.env, PODMAN_SOCKET: socketPath };
  await script('start', env, timeoutMs);
  const pidFile = `${socketPath}.pid`;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  return {
    stop: () => script('stop', env, 15_000),
    stopNow: () => {
      // Synchronous, for process exit: SIGTERM to the service started here, and its files gone.
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
      rmSync(pidFile, { force: true });
      rmSync(socketPath, { force: true });
    },
  };
}

/**
 * Makes sure a container engine answers for this run (see the module comment). Throws TargetError with
 * the setup hint when none can be had.
 */
export async function ensureContainerEngine(options: { log?: (m: string) => void; timeoutMs?: number; env?: NodeJS.ProcessEnv; deps?: Partial<EngineDeps> } = {}): Promise<ContainerEngine> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  const timeoutMs = options.timeoutMs ?? 15_000;
  const deps: EngineDeps = {
    ping: (s) => pingSocket(s),
    findPodman: () => findPodman(env),
    startService: (s) => startWithScript(s, timeoutMs),
    ...options.deps,
  };
  const socket = defaultPodmanSocket(env);
  const dockerHost = env.DOCKER_HOST;
  const pointsElsewhere = !!dockerHost && dockerHost !== `unix://${socket}`;
  const decision = decideEngine({
    dockerHost,
    defaultSocket: socket,
    answers: pointsElsewhere ? false : await deps.ping(socket),
    podman: pointsElsewhere ? undefined : deps.findPodman(),
  });
  if (decision.action === 'fail') throw new TargetError(decision.message);
  if (decision.action === 'use') return { dockerHost: decision.dockerHost, started: false, stop: async () => {} };

  log(`no container engine answers on ${decision.dockerHost}; starting podman's API service for this run`);
  const t = performance.now();
  let service: Awaited<ReturnType<EngineDeps['startService']>>;
  try {
    service = await deps.startService(socket);
  } catch (err) {
    throw new TargetError(`podman's API service did not start on ${decision.dockerHost} (${(err as Error).message}). ${CONTAINER_SETUP_HINT}`);
  }
  log(`podman's API service answers on ${decision.dockerHost} (${((performance.now() - t) / 1000).toFixed(1)} s); it is stopped when the run ends`);
  // Last resort: a process that exits without stopping it (process.exit, an uncaught error) still does.
  const onExit = () => service.stopNow();
  process.on('exit', onExit);
  let stopping: Promise<void> | undefined;
  return {
    dockerHost: decision.dockerHost,
    started: true,
    stop: () => {
      stopping ??= (async () => {
        try {
          await service.stop();
          log(`podman's API service on ${decision.dockerHost} stopped`);
        } catch (err) {
          log(`stopping podman's API service failed (${(err as Error).message}); stopping it by its pid`);
          service.stopNow();
        }
        // Only now: a process that exits while the stop is under way still stops the service.
        process.off('exit', onExit);
      })();
      return stopping;
    },
  };
}
