import { execFile, execFileSync, spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';
import { ensureReferenceImage } from '../../src/targets/container.js';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';

// The harness's own image (Dockerfile.harness), built on the reference image, run as a user runs it: podman
// run with the report folder mounted, the key in the environment, host networking to reach a deployment on
// this machine's loopback. Needs podman (scripts/setup.sh); fails, never skips, without it.
// Then its variant with the interop matrix's Python and Go clients (Dockerfile.harness-interop), built on it.

const IMAGE = 'localhost/mcp-canvas-harness:test';
const INTEROP_IMAGE = 'localhost/mcp-canvas-harness:interop-test';
const podmanEnv = { ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? join(PACKAGE_ROOT, '.tools/containers/containers.conf') };

interface Ran { code: number; stdout: string; stderr: string }
function podman(args: string[], timeoutMs = 120_000, env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile('podman', args, { cwd: PACKAGE_ROOT, env: { ...podmanEnv, ...env }, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

let server: ReferenceServer;
let buildS = 0;

beforeAll(async () => {
  const reference = await ensureReferenceImage(() => {});
  const t = performance.now();
  // podman itself, not the API: the context is read where it lies (the API would be sent node_modules too).
  const build = await podman(['build', '--quiet', '-f', 'Dockerfile.harness', '--build-arg', `REFERENCE_IMAGE=${reference}`, '-t', IMAGE, '.'], 600_000);
  if (build.code !== 0) throw new Error(`podman build -f Dockerfile.harness failed: ${build.stderr.slice(-2000)}`);
  buildS = (performance.now() - t) / 1000;
  // The variant with the Python and Go clients (Dockerfile.harness-interop), from a context prepared as its
  // header says: the Go client built here (static), the Python SDK's wheels downloaded here with this
  // checkout's venv (pip's cache and find-links), since the build reaches neither a Go image nor PyPI.
  const context = mkdtempSync(join(tmpdir(), 'harness-interop-context-'));
  try {
    const clients = join(PACKAGE_ROOT, 'src/interop/clients');
    mkdirSync(join(context, 'src/interop/clients'), { recursive: true });
    for (const f of ['python-client.py', 'requirements.txt']) cpSync(join(clients, f), join(context, 'src/interop/clients', f));
    execFileSync('go', ['build', '-trimpath', '-o', join(context, '.tools/bin/interop-go'), '.'], { cwd: join(clients, 'go-client'), env: { ...process.env, CGO_ENABLED: '0' }, stdio: 'pipe', timeout: 300_000 });
    execFileSync(join(PACKAGE_ROOT, '.tools/venv/bin/pip'), ['download', '-q', '-d', join(context, '.tools/wheels'), '-r', join(clients, 'requirements.txt'),
      '--python-version', '3.11', '--platform', 'manylinux_2_17_x86_64', '--only-binary=:all:'], { stdio: 'pipe', timeout: 300_000 });
    const variant = await podman(['build', '--quiet', '-f', join(PACKAGE_ROOT, 'Dockerfile.harness-interop'), '--ignorefile', join(PACKAGE_ROOT, 'Dockerfile.harness-interop.dockerignore'),
      '--build-arg', `HARNESS_IMAGE=${IMAGE}`, '-t', INTEROP_IMAGE, context], 600_000);
    if (variant.code !== 0) throw new Error(`podman build -f Dockerfile.harness-interop failed: ${variant.stderr.slice(-2000)}`);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
  server = await startReference();
}, 15 * 60_000);

afterAll(async () => {
  await server?.close();
});

describe('the harness image', { timeout: 180_000 }, () => {
  it('runs its executable as PID 1, as the unprivileged node user', async () => {
    console.log(`harness image built in ${buildS.toFixed(1)} s`);
    const version = await podman(['run', '--rm', IMAGE, '--version']);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toMatch(/^mcp-canvas-harness \d+\.\d+\.\d+$/);
    const user = await podman(['run', '--rm', '--entrypoint', 'id', IMAGE, '-u']);
    expect(user.stdout.trim()).toBe('1000');
    // Exec form: node itself is PID 1, and gets the engine's SIGTERM.
    const entrypoint = await podman(['image', 'inspect', '--format', '{{json .Config.Entrypoint}}', IMAGE]);
    expect(JSON.parse(entrypoint.stdout)).toEqual(['node', '--max-semi-space-size=32', '/app/dist/src/cli/bin.js']);
  });

  // PID 1 ignores a signal it has no handler for: `podman stop` would wait out its grace period and kill.
  // The run is long by construction (a deep property search of 200,000 runs, minutes on any machine) and is
  // stopped once its first group has finished: what is proven is the handler, on any machine's speed.
  it('stops on SIGTERM as PID 1: exit 143 at once, not after the engine\'s grace period', async () => {
    const name = `harness-stop-${process.pid}`;
    const reports = mkdtempSync(join(tmpdir(), 'harness-image-'));
    chmodSync(reports, 0o777);
    const child = spawn('podman', ['run', '--rm', '--name', name, '--network', 'host', '-v', `${reports}:/reports`, IMAGE,
      'conformance', '--base-url', server.baseUrl, '--only', 'auth-other-scheme-401', '--runs', '200000', '--seed', '1'], { cwd: PACKAGE_ROOT, env: podmanEnv });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const underway = new Promise<boolean>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/^auth checks: /m.test(stderr)) resolve(true);
      });
      void exited.then(() => resolve(false));
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    try {
      expect(await underway, `the run never reached its property search:\n${stderr}`).toBe(true);
      const t = performance.now();
      await podman(['stop', '--time', '20', name]);
      const stoppedS = (performance.now() - t) / 1000;
      expect(await exited, stderr).toBe(143);
      expect(stoppedS).toBeLessThan(10);
    } finally {
      clearTimeout(killer);
    }
  });

  it('conformance against a deployment on this machine: the key from the environment, the reports in the mounted folder', async () => {
    const { apiKey } = await bootstrap(server);
    const reports = mkdtempSync(join(tmpdir(), 'harness-image-'));
    chmodSync(reports, 0o777); // the image's node user (uid 1000) writes there
    const run = await podman(['run', '--rm', '--network', 'host', '-e', 'MCP_API_KEY', '-v', `${reports}:/reports`, IMAGE,
      'conformance', '--base-url', server.baseUrl, '--only', 'discovery-,tools-', '--seed', '1'], 180_000, { MCP_API_KEY: apiKey });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^conforms: /);
    // The paths printed are the container's; the files are in the mounted folder.
    expect(run.stdout).toContain('/reports/results.json');
    for (const f of ['results.json', 'junit.xml', 'summary.md', 'report.html']) expect(existsSync(join(reports, f)), f).toBe(true);
    const results = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')) as { requirements: { id: string }[] };
    expect(results.requirements.every((r) => /^(discovery|tools)-/.test(r.id))).toBe(true);
    for (const text of [run.stdout, run.stderr, readFileSync(join(reports, 'results.json'), 'utf8')]) expect(text).not.toContain(apiKey.split('_live_')[1]);
  });

  it('the interop variant (Dockerfile.harness-interop) exercises every Python and Go row of the matrix', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'harness-image-'));
    chmodSync(reports, 0o777);
    // The embedded target: on a --base-url deployment the stdio rows need --target stdio, so only there do all
    // five rows per client run (the repository's stdio proxy, in the image too).
    const run = await podman(['run', '--rm', '-v', `${reports}:/reports`, INTEROP_IMAGE,
      'conformance', '--only', 'interop-python-,interop-go-', '--clients', 'python,go', '--seed', '1'], 180_000);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const results = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')) as { requirements: { id: string; level: string; status: string }[] };
    const rows = results.requirements.filter((r) => /^interop-(python|go)-/.test(r.id));
    expect(rows.length).toBeGreaterThanOrEqual(10);
    expect(rows.filter((r) => r.level === 'MUST' && r.status !== 'pass').map((r) => `${r.id}: ${r.status}`)).toEqual([]);
  });
});
