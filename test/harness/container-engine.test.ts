import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEngine } from '../../src/targets/container.js';
import { decideEngine, ENGINE_PATIENCE_MS, ensureContainerEngine, type EngineDeps } from '../../src/targets/container-engine.js';
import { TargetError } from '../../src/targets/target.js';

const SOCK = '/tmp/podman.sock';

describe('decideEngine', () => {
  it('uses a DOCKER_HOST that points elsewhere, without looking further', () => {
    expect(decideEngine({ dockerHost: 'unix:///var/run/docker.sock', defaultSocket: SOCK, answers: false, podman: '/usr/bin/podman' }))
      .toEqual({ action: 'use', dockerHost: 'unix:///var/run/docker.sock', why: 'DOCKER_HOST elsewhere' });
    expect(decideEngine({ dockerHost: 'tcp://10.0.0.2:2375', defaultSocket: SOCK, answers: false, podman: undefined }).action).toBe('use');
  });

  it('uses an engine that already answers on the default socket (DOCKER_HOST unset or naming it)', () => {
    for (const dockerHost of [undefined, `unix://${SOCK}`]) {
      expect(decideEngine({ dockerHost, defaultSocket: SOCK, answers: true, podman: '/usr/bin/podman' }))
        .toEqual({ action: 'use', dockerHost: `unix://${SOCK}`, why: 'already answers' });
    }
  });

  it('starts podman when nothing answers and podman is installed', () => {
    expect(decideEngine({ dockerHost: undefined, defaultSocket: SOCK, answers: false, podman: '/usr/bin/podman' }))
      .toEqual({ action: 'start', dockerHost: `unix://${SOCK}`, podman: '/usr/bin/podman' });
  });

  it('fails with the setup hint when nothing answers and podman is missing', () => {
    const d = decideEngine({ dockerHost: undefined, defaultSocket: SOCK, answers: false, podman: undefined });
    expect(d.action).toBe('fail');
    expect(d.action === 'fail' && d.message).toMatch(/podman is not installed.*scripts\/setup-containers\.sh/);
  });
});

describe('ensureContainerEngine', () => {
  function fakes(answers: boolean, podman: string | undefined) {
    const calls = { ping: 0, start: 0, stop: 0, stopNow: 0 };
    const deps: EngineDeps = {
      ping: async () => (calls.ping++, answers),
      findPodman: () => podman,
      startService: async () => (calls.start++, { stop: async () => void calls.stop++, stopNow: () => void calls.stopNow++ }),
    };
    return { calls, deps };
  }

  it('starts the service when needed and stops it once, however often stop is called', async () => {
    const { calls, deps } = fakes(false, '/usr/bin/podman');
    const engine = await ensureContainerEngine({ env: { PODMAN_SOCKET: '/tmp/x.sock' }, deps });
    expect(engine).toMatchObject({ dockerHost: 'unix:///tmp/x.sock', started: true });
    await Promise.all([engine.stop(), engine.stop()]);
    await engine.stop();
    expect(calls).toEqual({ ping: 1, start: 1, stop: 1, stopNow: 0 });
  });

  it('starts nothing and stops nothing when an engine answers', async () => {
    const { calls, deps } = fakes(true, '/usr/bin/podman');
    const engine = await ensureContainerEngine({ env: {}, deps });
    expect(engine).toMatchObject({ dockerHost: 'unix:///tmp/podman.sock', started: false });
    await engine.stop();
    expect(calls).toEqual({ ping: 1, start: 0, stop: 0, stopNow: 0 });
  });

  it('neither pings nor starts when DOCKER_HOST points elsewhere', async () => {
    const { calls, deps } = fakes(false, '/usr/bin/podman');
    const engine = await ensureContainerEngine({ env: { DOCKER_HOST: 'unix:///var/run/docker.sock' }, deps });
    expect(engine).toMatchObject({ dockerHost: 'unix:///var/run/docker.sock', started: false });
    expect(calls).toEqual({ ping: 0, start: 0, stop: 0, stopNow: 0 });
  });

  it('throws TargetError with the setup hint when podman is missing, or when its service does not start', async () => {
    await expect(ensureContainerEngine({ env: {}, deps: fakes(false, undefined).deps })).rejects.toThrow(TargetError);
    const failing = { ...fakes(false, '/usr/bin/podman').deps, startService: async () => { throw new Error('exited'); } };
    await expect(ensureContainerEngine({ env: {}, deps: failing })).rejects.toThrow(/did not start.*exited.*setup-containers/);
  });
});

describe('a busy engine is waited for, not taken for an absent one', () => {
  // An engine that answers slowly: the ping after 3 s, the base image's inspect after 6 s. Measured: 4 s for
  // an inspect while an image builds beside a full test run; the old limits (2 s, 5 s) failed a CI run.
  let socketPath: string;
  let server: Server;
  beforeAll(async () => {
    socketPath = join(mkdtempSync(join(tmpdir(), 'slow-engine-')), 'engine.sock');
    server = createServer((req, res) => {
      const delay = req.url === '/_ping' ? 3_000 : 6_000;
      setTimeout(() => res.end(req.url === '/_ping' ? 'OK' : '{}'), delay);
    });
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.concurrent('ensureContainerEngine uses the engine that answers late: it does not try to start another', async () => {
    const deps: Partial<EngineDeps> = { findPodman: () => '/usr/bin/podman', startService: async () => { throw new Error('started a second service'); } };
    const engine = await ensureContainerEngine({ env: { PODMAN_SOCKET: socketPath }, deps });
    expect(engine).toMatchObject({ dockerHost: `unix://${socketPath}`, started: false });
  }, 60_000);

  it.concurrent('the container target\'s engine check passes on it, base image included', async () => {
    await expect(checkEngine('localhost/canvas-node-base', `unix://${socketPath}`)).resolves.toBeUndefined();
  }, 60_000);

  it.concurrent('an engine that is not there still fails at once, with the setup hint', async () => {
    const t = performance.now();
    await expect(checkEngine('localhost/canvas-node-base', `unix://${socketPath}.absent`)).rejects.toThrow(/no container engine answers.*setup-containers/);
    expect(performance.now() - t).toBeLessThan(ENGINE_PATIENCE_MS / 2);
  });
});
