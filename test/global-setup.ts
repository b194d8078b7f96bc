import { ensureContainerEngine } from '../src/targets/container-engine.js';

/**
 * The container tests talk to podman's Docker-compatible socket. `npm test` starts that service the way
 * `--target container` does (ensureContainerEngine: when podman is installed and nothing answers yet) and
 * stops it again afterwards: the test command needs no preparation beyond scripts/setup.sh. Without an
 * engine the container tests fail with the setup hint.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  try {
    const engine = await ensureContainerEngine();
    // Quietly: the test summary stays the last line of the run.
    return engine.started ? () => engine.stop() : undefined;
  } catch {
    return undefined;
  }
}
