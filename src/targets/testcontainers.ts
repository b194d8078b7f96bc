import { createRequire } from 'node:module';
import { engineAddress } from './container-engine.js';
import { TargetError } from './target.js';

const MISSING = '--target container needs the testcontainers package, which the harness does not install for everyone: npm install --save-dev testcontainers@^11 (its install scripts are not needed: deny them)';

/**
 * Fails with the install line when testcontainers is not installed, without loading it: said before a container
 * engine is started for the run, since the engine's own setup hint would send the user to prepare a machine
 * that still could not run the target.
 */
export function requireTestcontainers(): void {
  try {
    createRequire(import.meta.url).resolve('testcontainers');
  } catch {
    throw new TargetError(MISSING);
  }
}

/**
 * testcontainers, loaded with the settings every use of it here needs. It reads them once, when its first
 * client is made, and the module (with that client) is shared by everything in a process: vitest runs test
 * files in one process (isolate: false), so a file that loaded it without the host override made a later
 * file's container unreachable (its /healthz "not accessible after 60000ms", its port bound to 127.0.0.1).
 */
export async function loadTestcontainers(): Promise<typeof import('testcontainers')> {
  // The engine ensureContainerEngine uses (or starts) when DOCKER_HOST is unset: podman's default socket.
  process.env.DOCKER_HOST = engineAddress();
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true'; // ryuk's image cannot be pulled without a registry
  // Published ports bind 127.0.0.1 only (loopbackContainer): that is the host to reach them on.
  process.env.TESTCONTAINERS_HOST_OVERRIDE = '127.0.0.1';
  try {
    return await import('testcontainers');
  } catch (err) {
    // An optional peer dependency (package.json): only --target container needs it, and through dockerode it
    // brings install scripts (ssh2, cpu-features, protobufjs) every other user would be asked to allow.
    if ((err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') {
      throw new TargetError(MISSING);
    }
    throw err;
  }
}
