import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * The container test talks to podman's Docker-compatible socket. `npm test` starts that service when
 * podman is installed and nothing answers yet, and stops it again afterwards: the test command needs no
 * preparation beyond scripts/setup.sh. Without podman the container test fails with the setup hint.
 */
export default function setup(): (() => void) | undefined {
  if (process.env.DOCKER_HOST && process.env.DOCKER_HOST !== 'unix:///tmp/podman.sock') return undefined;
  const hasPodman = ['/usr/bin/podman', '/usr/local/bin/podman'].some((p) => existsSync(p));
  if (!hasPodman) return undefined;
  const running = () => {
    try {
      execFileSync('bash', ['scripts/podman-socket.sh', 'status'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  if (running()) return undefined;
  execFileSync('bash', ['scripts/podman-socket.sh', 'start'], { stdio: ['ignore', 'ignore', 'inherit'] });
  return () => {
    // Quietly: the test summary stays the last line of the run.
    execFileSync('bash', ['scripts/podman-socket.sh', 'stop'], { stdio: 'ignore' });
  };
}
