import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';
import { runCommand } from '../helpers/run-command.js';

/**
 * The project as it ships: `npm pack`, then the tarball installed with `npm ci --omit=dev` into an empty
 * directory (the lock file beside it, since npm never packs one), and every command run from its compiled
 * dist/ with no dev dependency present: no tsx, no TypeScript, no vitest. better-sqlite3's native binding is
 * copied from this checkout's build instead of compiled again (the same node; a build costs a minute).
 */
describe('the packed project, installed without dev dependencies', () => {
  let dir: string;
  let app: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pack-install-'));
    execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: PACKAGE_ROOT, stdio: 'pipe' });
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
    execFileSync('tar', ['-xzf', tarball], { cwd: dir });
    app = join(dir, 'package');
    cpSync(join(PACKAGE_ROOT, 'package-lock.json'), join(app, 'package-lock.json'));
    execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], { cwd: app, stdio: 'pipe', timeout: 240_000 });
    cpSync(join(PACKAGE_ROOT, 'node_modules/better-sqlite3/build'), join(app, 'node_modules/better-sqlite3/build'), { recursive: true });
  }, 300_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const node = (args: string[], env: Record<string, string> = {}) => spawnSync(process.execPath, args, { cwd: app, encoding: 'utf8', timeout: 60_000, env: { ...process.env, MCP_API_KEY: '', ...env } });

  it('holds the compiled programs and the data they read, and no dev dependency', () => {
    for (const path of ['dist/src/cli/conformance.js', 'dist/suites/auth.suite.js', 'profiles/service.json', 'reports/results.schema.json', 'load/k6/stateless-post.ts', 'load/scenarios.ts', 'load/reply-check.ts', 'Dockerfile', 'Dockerfile.harness']) {
      expect(existsSync(join(app, path)), path).toBe(true);
    }
    for (const dev of ['tsx', 'typescript', 'vitest', 'esbuild']) expect(existsSync(join(app, 'node_modules', dev)), dev).toBe(false);
    // Issue 36: what only --target container needs (testcontainers, and through dockerode the install scripts of
    // ssh2, cpu-features and protobufjs) is an optional peer: not in every install.
    for (const optional of ['testcontainers', 'ssh2', 'cpu-features', 'protobufjs']) expect(existsSync(join(app, 'node_modules', optional)), optional).toBe(false);
    // Sources stay out: what runs is dist/.
    expect(existsSync(join(app, 'src/engine/run.ts'))).toBe(false);
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(Object.values(pkg.scripts).filter((s) => /\btsx\b/.test(s))).toEqual([]);
  });

  // With an engine answering, and with none (the run would start podman's service): the missing package is said
  // first, and no engine is started for a run that could not use it (it once sent the user to set up podman).
  it.each([['an engine answering', {}], ['no engine answering', { DOCKER_HOST: '', PODMAN_SOCKET: '/tmp/pack-install-no-engine.sock' }]] as const)(
    '--target container without testcontainers installed, %s: exit 2, one line saying how to add it', (_, env) => {
      const run = node(['dist/src/cli/conformance.js', '--target', 'container', '--report-dir', join(dir, 'no-testcontainers')], env);
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/^error: --target container needs the testcontainers package[^\n]*npm install --save-dev testcontainers@\^11/m);
      expect(run.stderr).not.toMatch(/^\s+at /m);
      expect(run.stderr).not.toMatch(/starting podman|podman's API service/);
    });

  it.each([
    ['conformance', 'dist/src/cli/conformance.js'],
    ['load', 'dist/src/cli/load.js'],
    ['load:k6', 'dist/src/cli/load-k6.js'],
    ['probe:rate-limit', 'dist/src/cli/probe-rate-limit.js'],
    ['reference', 'dist/service/reference-server/main.js'],
    ['admin', 'dist/service/reference-server/admin.js'],
    ['stdio-proxy', 'dist/service/reference-server/stdio-proxy/main.js'],
  ])('%s --help prints its usage and exits 0', (_name, program) => {
    const run = node([program, '--help']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Usage/i);
  });

  // npx's own start costs seconds a call on a busy machine: it resolves the executable twice (--version, a command's
  // help), and the package's bin, the very file npx runs, gives each command's help from the install.
  it('npx runs its one executable: --version, and each command\'s help under its name', () => {
    const npx = (args: string[]) => spawnSync('npx', ['--offline', 'mcp-canvas-harness', ...args], { cwd: app, encoding: 'utf8', timeout: 60_000 });
    const version = npx(['--version']);
    expect(version.status, version.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };
    expect(version.stdout.trim()).toBe(`mcp-canvas-harness ${pkg.version}`);
    const viaNpx = npx(['conformance', '--help']);
    expect(viaNpx.status, viaNpx.stderr).toBe(0);
    expect(viaNpx.stdout).toContain('Usage: mcp-canvas-harness conformance');
    for (const command of ['load', 'k6', 'probe', 'capacity', 'reference', 'stdio-proxy', 'setup-interop']) {
      const help = node([pkg.bin['mcp-canvas-harness']!, command, '--help']);
      expect(help.status, `${command}: ${help.stderr}`).toBe(0);
      expect(help.stdout).toContain(`Usage: mcp-canvas-harness ${command}`);
    }
  }, 300_000);

  it('another project that depends on it runs `npx mcp-canvas-harness conformance`, reports in its own folder', () => {
    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{ "name": "project", "version": "1.0.0", "private": true }\n');
    // A folder dependency: linked, its bin on the project's PATH, nothing fetched.
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', app], { cwd: project, stdio: 'pipe' });
    const run = spawnSync('npx', ['--offline', 'mcp-canvas-harness', 'conformance', '--only', 'discovery-', '--seed', '1', '--quiet', '--report-dir', 'reports'], { cwd: project, encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^conforms: /);
    expect(existsSync(join(project, 'reports', 'results.json'))).toBe(true);
    // Issue 36: the replay line a failure prints runs when pasted where the person is (the bare executable's
    // name is on no PATH outside npm), through npx and through node_modules/.bin alike.
    for (const [command, args] of [['npx', ['--offline', 'mcp-canvas-harness']], [join(project, 'node_modules/.bin/mcp-canvas-harness'), []]] as const) {
      const failing = spawnSync(command, [...args, 'conformance', '--mutant', 'auth-missing-key-accepted', '--only', 'auth-missing-key-401', '--seed', '1', '--report-dir', 'failing'], { cwd: project, encoding: 'utf8', timeout: 60_000 });
      expect(failing.status, failing.stderr).toBe(1);
      const replay = /^ +replay: (.*)$/m.exec(failing.stdout)?.[1];
      expect(replay, failing.stdout).toBe('npx mcp-canvas-harness conformance --target embedded --mutant auth-missing-key-accepted --only auth-missing-key-401 --seed 1');
      const pasted = spawnSync('sh', ['-c', `${replay!} --quiet --report-dir replayed`], { cwd: project, encoding: 'utf8', timeout: 60_000 });
      expect(pasted.status, pasted.stderr).toBe(1);
      expect(pasted.stdout).toMatch(/^does not conform: 1 requirement\(s\) fail: auth-missing-key-401$/m);
    }

    // `kill -INT` to npx alone: npm hands it to the `sh -c` between them, which keeps it (src/kit/main.ts). Sent
    // once the run is under way (its first group's line), not after a fixed time: a busy machine may still be loading it.
    for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
      const reports = join(project, `reports-${signal}`);
      const npx = spawnSync('bash', ['-c', `npx --offline mcp-canvas-harness conformance --seed 1 --budget 60 --report-dir ${reports} > ${reports}.out 2> ${reports}.err & npx=$!; for i in $(seq 1 600); do grep -q 'checks:' ${reports}.err 2>/dev/null && break; sleep 0.1; done; kill -${signal.slice(3)} $npx; wait $npx; echo $?; sleep 1`], { cwd: project, encoding: 'utf8', timeout: 60_000 });
      expect(npx.stdout.trim(), `${signal}: ${npx.stderr}`).toBe(String(code));
      const left = spawnSync('pgrep', ['-f', `report-dir ${reports}`], { encoding: 'utf8' });
      expect(left.stdout, 'processes left running').toBe('');
      expect(readFileSync(`${reports}.out`, 'utf8')).not.toMatch(/conforms/);
      const results = join(reports, 'results.json');
      if (existsSync(results)) expect((JSON.parse(readFileSync(results, 'utf8')) as { exitCode?: number }).exitCode).not.toBe(0);
    }
  }, 300_000);

  // As CI would use the package on a machine of its own: the reference started from the install, every command against it.
  it('from the same install: the reference server, then conformance, load, probe and k6 against it', async () => {
    const config = join(dir, 'reference.json');
    writeFileSync(config, JSON.stringify({ bootstrapPlan: 'unlimited', bootstrapRateLimit: { ratePerSecond: 100, burst: 100 } }));
    const reference = spawn(process.execPath, ['dist/src/cli/bin.js', 'reference', '--port', '0', '--config', config], { cwd: app, stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const baseUrl = await new Promise<string>((resolve) => reference.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const command = (args: string[], env: Record<string, string> = {}) =>
        runCommand(process.execPath, ['dist/src/cli/bin.js', ...args], { cwd: app, env: { ...process.env, MCP_API_KEY: '', ...env } });
      const reports = (name: string) => join(dir, `reports-${name}`);
      const conformance = await command(['conformance', '--base-url', baseUrl, '--only', 'discovery-,tools-,auth-missing-key-401', '--seed', '1', '--report-dir', reports('conformance')]);
      expect(conformance.code, conformance.stderr).toBe(0);
      expect(conformance.stdout).toMatch(/^conforms: /);
      const load = await command(['load', '--base-url', baseUrl, '--scenario', 'tools-list', '--duration', '1', '--connections', '2', '--quiet', '--report-dir', reports('load')]);
      expect(load.code, load.stderr).toBe(0);
      expect(load.stdout).toMatch(/^tools-list: [\d.]+ req\/s/m);
      const probe = await command(['probe', '--base-url', baseUrl, '--max-time', '5', '--step-time', '1', '--quiet', '--report-dir', reports('probe')]);
      expect(probe.code, probe.stderr).toBe(0);
      // An unlimited plan in five seconds: no limit found, which is no pass.
      expect(probe.stdout).toMatch(/^INCONCLUSIVE: .* \(--expect-rate makes this a failure\); \d+ requests in /m);
      // The k6 of this machine on PATH (a v1): the install has no Go toolchain to build one.
      const k6 = await command(['k6', '--base-url', baseUrl, '--scenario', 'tools-list', '--rate', '10', '--duration', '1', '--report-dir', reports('k6')], { PATH: `${join(PACKAGE_ROOT, '.tools/bin')}:${process.env.PATH}` });
      expect(k6.code, k6.stderr).toBe(0);
      expect(existsSync(join(reports('k6'), 'load-k6.json'))).toBe(true);
    } finally {
      reference.kill('SIGTERM');
    }
  }, 300_000);

  // Really installs (PyPI through pip's cache and find-links, the Go module and build caches of this machine):
  // about 20 s. The folder is a temporary MCP_INTEROP_TOOLS, never the user's own.
  it('setup-interop installs the Python and Go clients, then a run from the install exercises their rows', async () => {
    const tools = join(dir, 'interop-tools');
    const env = { ...process.env, MCP_API_KEY: '', MCP_INTEROP_TOOLS: tools };
    type Results = { requirements: { id: string; status: string; level: string; checks: { reason?: string }[] }[] };
    const before = await runCommand('npx', ['--offline', 'mcp-canvas-harness', 'conformance', '--only', 'interop-go-connect', '--clients', 'go', '--seed', '1', '--report-dir', join(dir, 'reports-interop-before')], { cwd: app, env });
    expect(before.code, before.stderr).toBe(0);
    // Not testable, naming the command that works from an install (not the checkout's setup script).
    const [row] = (JSON.parse(readFileSync(join(dir, 'reports-interop-before', 'results.json'), 'utf8')) as Results).requirements;
    expect(row).toMatchObject({ id: 'interop-go-connect', status: 'not-testable' });
    expect(row!.checks[0]!.reason).toContain(`install it with \`npx mcp-canvas-harness setup-interop\``);
    const setup = await runCommand('npx', ['--offline', 'mcp-canvas-harness', 'setup-interop'], { cwd: app, env });
    expect(setup.code, setup.stderr).toBe(0);
    expect(setup.stdout).toContain(`installed in ${join(tools, 'venv')}`);
    expect(existsSync(join(tools, 'bin/interop-go'))).toBe(true);
    const again = await runCommand('npx', ['--offline', 'mcp-canvas-harness', 'setup-interop'], { cwd: app, env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/already in .*\n.*already built/s);
    const reports = join(dir, 'reports-interop');
    const run = await runCommand('npx', ['--offline', 'mcp-canvas-harness', 'conformance', '--only', 'interop-python-,interop-go-', '--clients', 'python,go', '--seed', '1', '--report-dir', reports], { cwd: app, env });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const results = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')) as Results;
    const rows = results.requirements.filter((r) => /^interop-(python|go)-/.test(r.id));
    expect(rows.length).toBeGreaterThanOrEqual(10);
    expect(rows.filter((r) => r.level === 'MUST' && r.status !== 'pass').map((r) => `${r.id}: ${r.status}`)).toEqual([]);
  }, 300_000);

  it('an embedded --only run conforms and writes its reports', () => {
    const reports = join(dir, 'reports');
    const run = node(['dist/src/cli/conformance.js', '--only', 'discovery-', '--seed', '1', '--report-dir', reports]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^conforms: /);
    const results = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')) as { requirements: { id: string; status: string }[] };
    expect(results.requirements.length).toBeGreaterThan(5);
    expect(results.requirements.every((r) => r.id.startsWith('discovery-'))).toBe(true);
  });
});
