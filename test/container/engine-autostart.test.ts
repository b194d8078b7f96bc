import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runConformanceChild } from '../../scripts/conformance-runs.js';

// `--target container` with no engine answering and podman installed starts podman's API service for the
// run and stops it afterwards; a service that already answers is used and left running. A socket of this
// test's own (PODMAN_SOCKET) so that the container tests running beside it keep theirs. Needs podman and
// the machine prepared by scripts/setup.sh; fails, never skips, without them.

const SOCKET = `/tmp/podman-autostart-${process.pid}.sock`;
const ENV = { PODMAN_SOCKET: SOCKET, DOCKER_HOST: `unix://${SOCKET}` };
const ONLY = 'discovery-files-served';

function socket(command: 'start' | 'stop' | 'status'): boolean {
  try {
    execFileSync('bash', ['scripts/podman-socket.sh', command], { env: { ...process.env, PODMAN_SOCKET: SOCKET }, stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

afterAll(() => {
  socket('stop');
  rmSync(`${SOCKET}.log`, { force: true });
});

describe('the container target starts the engine it needs', { timeout: 300_000 }, () => {
  it('with no engine answering: starts podman\'s API service, passes, and stops it afterwards', async () => {
    socket('stop');
    expect(socket('status'), 'the socket answers before the run').toBe(false);
    const run = await runConformanceChild(['--target', 'container', '--only', ONLY], 280_000, undefined, ENV);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/starting podman's API service for this run/);
    expect(run.stderr).toMatch(/podman's API service on unix:\/\/\S+ stopped/);
    expect(run.results?.target.kind).toBe('container');
    expect(socket('status'), 'the socket still answers after the run').toBe(false);
  });

  it('with the service already answering: uses it and leaves it running', async () => {
    expect(socket('start'), 'scripts/podman-socket.sh start').toBe(true);
    const run = await runConformanceChild(['--target', 'container', '--only', ONLY], 280_000, undefined, ENV);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/starting podman's API service/);
    // The first run left the image of these very sources tagged: it is reused, not rebuilt.
    expect(run.stderr).toMatch(/image \S+ is up to date .*not rebuilt/);
    expect(socket('status'), 'the socket answers after the run').toBe(true);
  });
});
