import type { StartedTestContainer } from 'testcontainers';
import { request } from 'undici';
import type { ConfigOverrides } from '../../service/reference-server/config.js';
import { CONFORMANCE_CONFIG } from '../../service/reference-server/conformance-config.js';
import { loopbackContainer } from './loopback-container.js';
import { loadTestcontainers, requireTestcontainers } from './testcontainers.js';
import type { TargetInfo } from './target-info.js';
import { bootstrapKey, keyPrefixOf } from './bootstrap-keys.js';
import type { RunState } from '../engine/run-state.js';
import type { TargetBase } from './embedded.js';
import { TargetError, type PreparedTarget } from './target.js';
import { freePort } from '../kit/free-port.js';
import { CONTAINER_SETUP_HINT, engineAddress, engineGet, ensureContainerEngine } from './container-engine.js';
import { execFileSync } from 'node:child_process';
import { FINGERPRINT_LABEL, imageFingerprint } from './image-fingerprint.js';
import { withMachineLock } from './build-lock.js';
import { endingOnSignal } from '../kit/main.js';
import { PACKAGE_ROOT } from '../kit/package-root.js';
import { signalOwned } from '../kit/child-reaper.js';

const ROOT = PACKAGE_ROOT;
const IMAGE = 'localhost/canvas-reference:conformance';
const DB = '/data/conformance.sqlite';
const CONFIG_PATH = '/tmp/conformance-config.json';
export { CONTAINER_SETUP_HINT };

/** The engine at `host` answers, and has the local base image: TargetError with the setup hint otherwise. */
export async function checkEngine(baseImage: string, host = engineAddress()): Promise<void> {
  if (!host.startsWith('unix://')) return; // a remote engine: testcontainers reports its own errors
  const socket = host.slice('unix://'.length);
  const get = (path: string) => engineGet(socket, path).catch((err: Error) => {
    throw new TargetError(`no container engine answers on ${host} (${err.message}). ${CONTAINER_SETUP_HINT}`);
  });
  const status = await get('/_ping');
  if (status !== 200) throw new TargetError(`no container engine answers on ${host} (/_ping answered ${status}). ${CONTAINER_SETUP_HINT}`);
  if (baseImage.startsWith('localhost/') && (await get(`/images/${encodeURIComponent(baseImage)}/json`)) !== 200) {
    throw new TargetError(`the base image ${baseImage} does not exist. ${CONTAINER_SETUP_HINT}`);
  }
}


export interface ReferenceContainer {
  baseUrl: string;
  container: StartedTestContainer;
  close(): Promise<void>;
}

/**
 * Builds the repository's Dockerfile with testcontainers (Docker, or podman's Docker-compatible socket:
 * DOCKER_HOST, default unix:///tmp/podman.sock, which the run starts when nothing answers and podman is
 * installed: ensureContainerEngine) and runs the reference server in it with `config` (copied into the
 * container, `--config`), published on 127.0.0.1 only. `close` stops the container and then the engine
 * service this run started; on SIGINT/SIGTERM that nothing else handles it runs before the process ends.
 */
export async function startReferenceContainer(config: ConfigOverrides, log: (m: string) => void = (m) => console.error(`container: ${m}`)): Promise<ReferenceContainer> {
  requireTestcontainers();
  const engine = await ensureContainerEngine({ log });
  // Read by testcontainers when it first connects, so set before it is loaded.
  process.env.DOCKER_HOST = engine.dockerHost;
  let container: StartedTestContainer | undefined;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    // The signal listeners stay until the end: without them signal-exit would re-raise a signal at once.
    closing ??= (async () => {
      try {
        await container?.stop({ timeout: 5_000 });
      } finally {
        process.off('exit', removeOnExit);
        await engine.stop();
        releaseSignals();
      }
    })();
    return closing;
  };
  const releaseSignals = closeOnSignal(close);
  // A process that ends without `close` (process.exit, or another handler's exit on a signal) still
  // removes the container when this run started the engine: podman's command needs no service.
  const removeOnExit = () => {
    if (engine.started && container) removeWithPodman(container.getId());
  };
  process.on('exit', removeOnExit);
  try {
    const started = await buildAndRun(config, log);
    container = started.container;
    return { baseUrl: started.baseUrl, container, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** SIGINT/SIGTERM that no other listener handles: `close`, at most 15 s, then the exit the signal asks for. */
function closeOnSignal(close: () => Promise<void>): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    // Another handler (the load command's Ctrl-C, vitest's) ends the run and closes the target, or exits
    // and leaves the rest to the exit hooks.
    if (signalOwned(signal, onSignal)) return;
    const code = signal === 'SIGINT' ? 130 : 143;
    endingOnSignal(code);
    void Promise.race([close(), new Promise((r) => setTimeout(r, 15_000).unref())]).finally(() => process.exit(code));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

function removeWithPodman(id: string): void {
  try {
    const env = { ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? `${ROOT}.tools/containers/containers.conf` };
    execFileSync('podman', ['--runtime', 'runc', 'rm', '-f', '-t', '2', id], { stdio: 'ignore', timeout: 10_000, env });
  } catch {
    // best effort at exit
  }
}

/** The engine's description of a local image, or undefined when there is none (or no engine to ask). */
async function inspectImage(name: string) {
  const { getContainerRuntimeClient, ImageName } = await loadTestcontainers();
  try {
    return await (await getContainerRuntimeClient()).image.inspect(ImageName.fromString(name));
  } catch {
    return undefined;
  }
}

/**
 * Whether the image tagged IMAGE was built from what this build would use. Building sends the whole context,
 * node_modules included, and the engine hashes it: 13 s on a quiet 2-core machine, for every container run.
 * Without a local base image (it would be pulled) there is no fingerprint, and the image is built as before.
 */
async function upToDate(fingerprint: string | undefined): Promise<boolean> {
  return fingerprint !== undefined && (await inspectImage(IMAGE))?.Config?.Labels?.[FINGERPRINT_LABEL] === fingerprint;
}

/**
 * The reference image built from the repository's Dockerfile, unless the image tagged IMAGE already was built
 * from the same sources, arguments and base image. Returns its tag. Talks to the engine at DOCKER_HOST, or
 * podman's default socket (engineAddress; startReferenceContainer sets DOCKER_HOST from ensureContainerEngine).
 */
export async function ensureReferenceImage(log: (m: string) => void): Promise<string> {
  const baseImage = process.env.BASE_IMAGE ?? 'localhost/canvas-node-base';
  const nodeModules = process.env.NODE_MODULES ?? (baseImage.startsWith('localhost/') ? 'host' : 'npm-ci');
  await checkEngine(baseImage);
  const { GenericContainer } = await loadTestcontainers();

  const buildArgs = { BASE_IMAGE: baseImage, NODE_MODULES: nodeModules };
  const base = await inspectImage(baseImage);
  let fingerprint: string | undefined;
  try {
    fingerprint = base && imageFingerprint(ROOT, buildArgs, base.Id);
  } catch {
    // An input it cannot read (no node_modules/.package-lock.json): build, as before.
  }
  // One build at a time on this machine: a run that waited for another's build finds the image up to date.
  await withMachineLock('canvas-harness-image-build', (holder) => log(`waiting for another run's build of ${IMAGE} (${holder})`), async () => {
    if (await upToDate(fingerprint)) {
      log(`image ${IMAGE} is up to date (built from the same sources, arguments and base image), not rebuilt`);
      return;
    }
    // The build's own time: not the fingerprint's, nor the wait for another run's build.
    const t = performance.now();
    try {
      // A fixed tag, kept after the run: without ryuk nothing would delete a per-run tag.
      await GenericContainer.fromDockerfile(ROOT).withBuildArgs({ ...buildArgs, SOURCE_FINGERPRINT: fingerprint ?? 'unknown' }).build(IMAGE, { deleteOnExit: false });
    } catch (err) {
      throw new TargetError(`building the Dockerfile failed: ${(err as Error).message}`);
    }
    log(`image ${IMAGE} built in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  });
  return IMAGE;
}

async function buildAndRun(config: ConfigOverrides, log: (m: string) => void): Promise<{ container: StartedTestContainer; baseUrl: string }> {
  const image = await ensureReferenceImage(log);
  const { Wait } = await loadTestcontainers();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = performance.now();
  let container;
  try {
    container = await (await loopbackContainer(image, [{ container: 8080, host: port }]))
      .withCopyContentToContainer([{ content: JSON.stringify({ ...config, dbPath: DB, publicBaseUrl: baseUrl }), target: CONFIG_PATH, mode: 0o644 }])
      .withCommand(['node', '--max-semi-space-size=32', 'dist/service/reference-server/main.js', '--host', '0.0.0.0', '--port', '8080', '--config', CONFIG_PATH])
      .withWaitStrategy(Wait.forHttp('/healthz', 8080).forStatusCode(200))
      .withStartupTimeout(60_000)
      .start();
  } catch (err) {
    throw new TargetError(`the container did not start: ${(err as Error).message}`);
  }
  log(`healthy at ${baseUrl} ${((performance.now() - started) / 1000).toFixed(1)} s after start`);
  return { container, baseUrl };
}

/**
 * The repository's Dockerfile built and run (startReferenceContainer) with the same conformance-friendly
 * configuration as the embedded target, then tested like a url target. Keys come from its bootstrap
 * endpoint; a third key is revoked with the admin command inside the container. Mail stays in the
 * container's outbox, so the claim-mail check is not testable here.
 */
export async function prepareContainer(run: RunState, base: TargetBase): Promise<PreparedTarget> {
  const log = (m: string) => console.error(`container: ${m}`);
  const { baseUrl, container: started, close } = await startReferenceContainer(CONFORMANCE_CONFIG, log);

  try {
    const [a, b] = await Promise.all(['A', 'B'].map((label) => bootstrapKey(baseUrl, label, run)));
    const revokedKey = await revokedKeyIn(started, baseUrl, run.settings.timeoutMs).catch((err: Error) => {
      log(`no revoked key (${err.message}); the revocation check will be not testable`);
      return undefined;
    });
    const info: TargetInfo = {
      ...base,
      kind: 'container',
      baseUrl,
      mcpUrl: `${baseUrl}/api/mcp/v1`,
      apiKey: base.apiKey ?? a!.apiKey,
      otherKey: base.otherKey ?? b!.apiKey,
      revokedKey: base.revokedKey ?? revokedKey,
      keyPrefix: keyPrefixOf(a!.apiKey),
      canBootstrap: true,
      revisions: [],
    };
    // Keys A and B, and the one revoked: bootstraps the run's budget pays for.
    return { info, close, bootstrapsUsed: 3 };
  } catch (err) {
    await close();
    throw err;
  }
}

type Exec = (command: string[]) => Promise<{ exitCode: number; stdout: string; stderr: string }>;

/** Bootstraps a workspace with a recognisable agent name, then revokes its key with the admin command in the container. */
async function revokedKeyIn(container: { exec: Exec }, baseUrl: string, timeoutMs: number): Promise<string> {
  const agentName = `conformance-revoked-${Date.now().toString(36)}`;
  const res = await request(`${baseUrl}/api/agent/bootstrap`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ humanEmail: `conformance+${agentName}@example.com`, agentName, workspaceName: 'conformance revoked', canvasName: 'conformance canvas' }),
    headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
  });
  const body = (await res.body.json()) as { apiKey?: unknown };
  if (typeof body.apiKey !== 'string') throw new Error(`bootstrap answered ${res.statusCode} without apiKey`);
  const admin = ['node', 'dist/service/reference-server/admin.js'];
  const listed = await container.exec([...admin, 'key', 'list', '--db', DB]);
  if (listed.exitCode !== 0) throw new Error(`admin key list exited ${listed.exitCode}: ${listed.stderr.trim()}`);
  const row = listed.stdout.split('\n').map((l) => {
    try {
      return JSON.parse(l) as { id: string; label: string };
    } catch {
      return undefined;
    }
  }).find((k) => k?.label === `bootstrap: ${agentName}`);
  if (!row) throw new Error('the bootstrapped key is not in the admin key list');
  const revoked = await container.exec([...admin, 'key', 'revoke', '--id', row.id, '--db', DB]);
  if (revoked.exitCode !== 0) throw new Error(`admin key revoke exited ${revoked.exitCode}: ${revoked.stderr.trim()}`);
  return body.apiKey;
}
