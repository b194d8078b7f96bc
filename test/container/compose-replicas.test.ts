import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { program } from '../../src/kit/package-root.js';
import { ensureReferenceImage } from '../../src/targets/container.js';

// Statelessness under load: the compose file's two replicas (one SQLite file) behind its round-robin
// balancer, loaded with `npm run load` through the balancer. "The server keeps no session state. A fresh
// server instance is built for every POST": so every request succeeds whichever replica serves it.
// Runs the docker-compose.yml of the repository with podman-compose (the setup script installs it);
// fails, never skips, when the container tools are missing. Its image is the container target's (the same
// Dockerfile and build arguments), built once per change of the sources and shared by every container test
// (ensureReferenceImage), then tagged as the compose file's image: `up --build` rebuilt it on every run
// (8 s with every layer cached, 19 s for a clean clone's new layers, on a quiet 2-core machine).

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PROJECT = 'canvas-compose-test';
const BALANCER = 'http://127.0.0.1:8081';
const COMPOSE_IMAGE = 'localhost/canvas-reference:latest'; // docker-compose.yml's x-image
const env = {
  ...process.env,
  CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? join(ROOT, '.tools/containers/containers.conf'),
  BASE_IMAGE: process.env.BASE_IMAGE ?? 'localhost/canvas-node-base',
  NODE_MODULES: process.env.NODE_MODULES ?? 'host',
};

const compose = (...args: string[]) => run('podman-compose', ['-p', PROJECT, ...args], { cwd: ROOT, env, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
const podman = (...args: string[]) => run('podman', args, { env, timeout: 60_000 });

async function upstreamCounts(): Promise<number[]> {
  const stats = (await (await fetch(`${BALANCER}/.balancer/stats`)).json()) as { upstreams: { requests: number }[] };
  return stats.upstreams.map((u) => u.requests);
}

/** `npm run load` through the balancer with a key in the environment (never on the command line). */
async function load(apiKey: string, reportDir: string, seconds: number): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [program('src/cli/load.ts'), '--target', 'url', '--base-url', BALANCER,
      '--scenario', 'mix', '--duration', String(seconds), '--connections', '8', '--threshold', 'errors==0', '--report-dir', reportDir, '--quiet'],
    { cwd: ROOT, env: { ...env, MCP_API_KEY: apiKey }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

let apiKey: string;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'compose-load-'));
  await compose('down', '-v').catch(() => undefined); // leftovers of an interrupted run
  // The balancer and what it depends on: smtp and the two replicas.
  const image = await ensureReferenceImage(() => {});
  await podman('tag', image, COMPOSE_IMAGE);
  await compose('up', '-d', '--no-build', 'balancer');
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`${BALANCER}/healthz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error('the balancer did not answer /healthz within 60 s');
    await new Promise((r) => setTimeout(r, 500));
  }
  // A key on a plan without a rate limit, minted as an admin would (the admin command in a replica):
  // the bootstrap plan would throttle a load run, which is not what this test is about.
  const admin = ['exec', `${PROJECT}_replica-a_1`, 'node', 'dist/service/reference-server/admin.js'];
  const ws = JSON.parse((await podman(...admin, 'workspace', 'create', '--db', '/data/canvas.db', '--name', 'load', '--plan', 'unlimited')).stdout) as { workspace: { id: string } };
  apiKey = (JSON.parse((await podman(...admin, 'key', 'mint', '--db', '/data/canvas.db', '--workspace', ws.workspace.id, '--label', 'compose load test')).stdout) as { apiKey: string }).apiKey;
}, 400_000);

afterAll(async () => {
  await compose('down', '-v').catch((err: Error) => console.error(`compose down failed: ${err.message}`));
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('two replicas behind the balancer, under load', () => {
  it('a load run alternating across the replicas has zero errors', async () => {
    const before = await upstreamCounts();
    const result = await load(apiKey, join(dir, 'healthy'), 3);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'healthy', 'load.json'), 'utf8')) as { scenarios: { name: string; requests: number; errors: number }[] };
    const mix = report.scenarios.find((s) => s.name === 'mix')!;
    expect(mix.errors).toBe(0);
    // Enough requests to show the alternation; how many a 3 s run makes depends on what else the two cores run.
    expect(mix.requests).toBeGreaterThan(10);
    const served = (await upstreamCounts()).map((n, i) => n - before[i]!);
    // Round-robin: each replica served half of the run's requests (give or take the last one).
    expect(served).toHaveLength(2);
    expect(Math.abs(served[0]! - served[1]!)).toBeLessThanOrEqual(1);
    expect(served[0]! + served[1]!).toBeGreaterThanOrEqual(mix.requests);
    for (const text of [result.stdout, result.stderr, readFileSync(join(dir, 'healthy', 'load.json'), 'utf8'), readFileSync(join(dir, 'healthy', 'load.md'), 'utf8')]) {
      expect(text).not.toContain(apiKey);
    }
  }, 90_000);

  it('with one replica down, the same run fails its zero-error gate', async () => {
    await podman('stop', '-t', '2', `${PROJECT}_replica-b_1`);
    const result = await load(apiKey, join(dir, 'broken'), 1);
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(readFileSync(join(dir, 'broken', 'load.json'), 'utf8')) as { scenarios: { errors: number; errorsByKind: Record<string, number> }[] };
    expect(report.scenarios[0]!.errors).toBeGreaterThan(0);
    expect(report.scenarios[0]!.errorsByKind['http-5xx']).toBeGreaterThan(0);
  }, 90_000);
});
