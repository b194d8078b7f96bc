import { execFileSync } from 'node:child_process';
import { ensureContainerEngine } from '../src/targets/container-engine.js';
import { PACKAGE_ROOT } from '../src/kit/package-root.js';

/**
 * Before any test: the harness is compiled (dist/), since every program a test starts (the commands, the
 * embedded server's thread, the SDK client programs, the stdio proxy) runs compiled; a test of the sources
 * must not run against an older build. Then the container tests' engine: podman's Docker-compatible socket,
 * started the way `--target container` does (ensureContainerEngine: when podman is installed and nothing
 * answers yet) and stopped again afterwards. Without an engine the container tests fail with the setup hint.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  // The build script (`npm run build`): tsc, then the executable bit npm gives a bin only when it exists at install time.
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: PACKAGE_ROOT, stdio: 'inherit' });
  try {
    const engine = await ensureContainerEngine();
    // Quietly: the test summary stays the last line of the run.
    return engine.started ? () => engine.stop() : undefined;
  } catch {
    return undefined;
  }
}
