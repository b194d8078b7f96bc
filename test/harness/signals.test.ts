import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT, program } from '../../src/kit/package-root.js';
import { descendantsOf } from '../../src/kit/child-reaper.js';

/** The processes whose parent is `pid` (pgrep exits 1 when there are none). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Whether `pid` still runs: a zombie (state Z, dead and waiting to be reaped by init) does not. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/**
 * A conformance run ended by a signal ends what it started: the interop matrix's SDK client programs are the
 * command's children, and a node process that dies of a signal takes none with it (src/kit/child-reaper.ts).
 */
/**
 * How long a command may take to start its children: a guard against a hang, not a speed limit. The wait ends
 * as soon as they run; on a busy machine npm, node, the run's preparation and four client runtimes took more
 * than 10 s (clean-clone CI, 2026-11-29).
 */
const START_WAIT_MS = 40_000;

/** Starts the command, waits until it has `least` children, signals it; returns its exit code and the children. */
async function signalled(args: string[], least: number, signal: NodeJS.Signals): Promise<{ code: number | null; started: number[]; stderr: () => string }> {
  const child = spawn(process.execPath, [program('src/cli/conformance.ts'), ...args, '--report-dir', mkdtempSync(join(tmpdir(), 'signals-'))], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  let started: number[] = [];
  for (let i = 0; i < START_WAIT_MS / 100 && started.length < least; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    started = childrenOf(child.pid!);
  }
  expect(started.length, 'the children started').toBeGreaterThanOrEqual(least);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  child.kill(signal);
  const code = await exited;
  await new Promise((resolve) => setTimeout(resolve, 500));
  return { code, started, stderr: () => stderr };
}

describe('a signal to a running conformance command', () => {
  it.each([['SIGTERM', 143], ['SIGINT', 130]] as const)('%s while the SDK clients run: exit %i, no child left', async (signal, code) => {
    const run = await signalled(['--only', 'interop-', '--seed', '1'], 2, signal);
    expect(run.code, run.stderr()).toBe(code);
    expect(run.started.filter(alive)).toEqual([]);
  }, 60_000);

  // No child at all (the embedded server is a thread): main()'s last word, not node's default death by signal.
  it('SIGTERM with no child process: exit 143', async () => {
    const child = spawn(process.execPath, [program('src/cli/conformance.ts'), '--only', 'calls-', '--seed', '1', '--report-dir', mkdtempSync(join(tmpdir(), 'signals-'))], { stdio: ['ignore', 'ignore', 'pipe'] });
    // The first progress line: the run is under way.
    await new Promise<void>((resolve) => child.stderr.once('data', () => resolve()));
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (c, s) => resolve([c, s])));
    child.kill('SIGTERM');
    expect(await exited).toEqual([143, null]);
  }, 60_000);

  // A stdio server that never answers and ignores its stdin's end: only the signal's reaper ends it.
  it("SIGTERM while a stdio target's server runs: exit 143, the server ended too", async () => {
    const run = await signalled(['--target', 'stdio', '--stdio-command', 'sleep 61', '--only', 'stdio'], 1, 'SIGTERM');
    expect(run.code, run.stderr()).toBe(143);
    expect(run.started.filter(alive)).toEqual([]);
  }, 60_000);
});

/**
 * Through npm, as a person types them: npm hands a signal to its script's process only, and a shell between
 * them (a script without `exec`) keeps it, so the command went on running (and writing reports) without npm.
 */
describe('a signal to `npm run <command>`', () => {
  it.each([['SIGTERM', 143], ['SIGINT', 130]] as const)('reference, %s: the server closes and exits %i, npm with it', async (signal, code) => {
    const npm = spawn('npm', ['run', '-s', 'reference', '--', '--port', '0'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise<void>((resolve) => npm.stdout.once('data', () => resolve()));
    const started = descendantsOf([npm.pid!]);
    expect(started.length, 'the server started').toBeGreaterThanOrEqual(1);
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (c) => resolve(c)));
    npm.kill(signal);
    expect(await exited).toBe(code);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(started.filter(alive)).toEqual([]);
  }, 60_000);

  it('conformance, SIGTERM while the SDK clients run: exit 143, no process left', async () => {
    const npm = spawn('npm', ['run', '-s', 'conformance', '--', '--only', 'interop-', '--seed', '1', '--report-dir', mkdtempSync(join(tmpdir(), 'signals-'))], { cwd: PACKAGE_ROOT, stdio: 'ignore' });
    let started: number[] = [];
    for (let i = 0; i < START_WAIT_MS / 100 && started.length < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      started = descendantsOf([npm.pid!]);
    }
    expect(started.length, 'the command and its clients started').toBeGreaterThanOrEqual(3);
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (c) => resolve(c)));
    npm.kill('SIGTERM');
    expect(await exited).toBe(143);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(started.filter(alive)).toEqual([]);
  }, 90_000);
});

/** Starts a command of the executable, waits until stderr says `ready`, signals it; its exit code and all it printed. */
async function signalledBin(args: string[], ready: RegExp, signal: NodeJS.Signals): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [program('src/cli/bin.ts'), ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  await new Promise<void>((resolve) => child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (ready.test(stderr)) resolve();
  }));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  child.kill(signal);
  const code = await exited;
  return { code, stderr };
}

describe('a signal to the load and probe commands', () => {
  it.each([['SIGTERM', 143], ['SIGINT', 130]] as const)('load, %s mid-scenario: the load stops, exit %i, no report passed off as complete', async (signal, code) => {
    const dir = mkdtempSync(join(tmpdir(), 'signals-'));
    const run = await signalledBin(['load', '--scenario', 'tools-list', '--duration', '30', '--connections', '2', '--quiet', '--report-dir', dir], /scenario tools-list:/, signal);
    expect(run.code, run.stderr).toBe(code);
    expect(run.stderr).toContain(`interrupted (${signal}): stopping the load`);
    expect(run.stderr).toContain('interrupted: no report written');
    expect(existsSync(join(dir, 'load.json'))).toBe(false);
  }, 60_000);

  it.each([['SIGTERM', 143], ['SIGINT', 130]] as const)('probe, %s while probing: exit %i', async (signal, code) => {
    const run = await signalledBin(['probe', '--max-time', '60', '--report-dir', mkdtempSync(join(tmpdir(), 'signals-'))], /probe: .*budget 60 s/, signal);
    expect(run.code, run.stderr).toBe(code);
  }, 60_000);
});

// npx (npm exec) starts the executable through `sh -c`; the shell keeps a SIGTERM sent to npx to itself and
// ends, leaving the command orphaned: it notices and ends as on SIGTERM (src/kit/main.ts).
describe('a signal to `npx mcp-canvas-harness`', () => {
  it('SIGTERM while the SDK clients run: npx ends, and nothing it started is left', async () => {
    const start = () => {
      const child = spawn('npx', ['--offline', 'mcp-canvas-harness', 'conformance', '--only', 'interop-', '--seed', '1', '--report-dir', mkdtempSync(join(tmpdir(), 'signals-'))], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
      const run = { child, stderr: '', ended: undefined as number | null | undefined, exited: undefined as unknown as Promise<void> };
      child.stderr!.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()));
      run.exited = new Promise<void>((resolve) => child.once('exit', (code) => {
        run.ended = code;
        resolve();
      }));
      return run;
    };
    // Polled until the clients run: on a loaded machine the command may take seconds to load before it starts them.
    // npx itself may end first (npm's cache busy with another test's install): it is started once more then.
    let run = start();
    let started: number[] = [];
    for (let attempt = 1; attempt <= 2; attempt++) {
      for (let i = 0; i < 400 && started.length < 4 && run.ended === undefined; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        started = descendantsOf([run.child.pid!]);
      }
      if (started.length >= 4 || attempt === 2 || run.ended === undefined) break;
      run = start();
    }
    expect(started.length, `the shell, the command and its clients started${run.ended !== undefined ? ` (npx ended first, code ${run.ended}): ${run.stderr.slice(-1000)}` : ''}`).toBeGreaterThanOrEqual(4);
    const npx = run.child;
    const exited = run.exited;
    npx.kill('SIGTERM');
    await exited;
    // The command sees itself orphaned within half a second, then ends its children.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(started.filter(alive)).toEqual([]);
  }, 90_000);
});
