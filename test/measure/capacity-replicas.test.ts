import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { program, PACKAGE_ROOT } from '../../src/kit/package-root.js';
import { CONTAINER_SETUP_HINT } from '../../src/targets/container-engine.js';
import { leftovers, podmanEnv } from '../../scripts/capacity-replicas/podman-replicas.js';
import type { ReplicasReport } from '../../scripts/capacity-replicas/replicas-report.js';
import { runCommand } from '../helpers/run-command.js';

// The scaling recipe end to end (issue 34 item 6): one replica, then two sharing one SQLite file, behind the
// balancer, each under the same CPU quota, searched with the capacity search; both rates and their ratio are
// reported and every container, network and volume of the run is gone afterwards, also after a SIGTERM.
// Short on purpose: a low quota (the replicas break at tens of req/s, far below the generator beside them), a
// p90 SLO that decides on tens of samples, a wide tolerance. Needs podman (scripts/setup-containers.sh);
// fails, never skips, without it.

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'capacity-replicas-'));
const SCRIPT = program('scripts/capacity-replicas.ts');
const ARGS = ['--cpus', '0.05', '--slo', 'p90<=100ms', '--start-rate', '20', '--max-rate', '500', '--tolerance', '20', '--max-window', '4', '--max-time', '45', '--connections', '64', '--max-send-lag', '50'];
/** A key in any output: `<prefix>_live_<secret>`. */
const KEY_SHAPE = /_live_[A-Za-z0-9_-]{8,}/;

const runIdOf = (stderr: string) => /run (capreplicas-\d+-[0-9a-f]+)/.exec(stderr)?.[1];

beforeAll(async () => {
  await run('podman', ['--version'], { env: podmanEnv(), timeout: 30_000 }).catch((err: Error) => {
    throw new Error(`podman is needed for this test and does not run (${err.message}). ${CONTAINER_SETUP_HINT}`);
  });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('capacity:replicas, one replica and two', () => {
  it('reports both sustained rates with their bounds and the ratio, writes both files, and leaves nothing behind', async () => {
    const reportDir = join(dir, 'run');
    const t = performance.now();
    const result = await runCommand(process.execPath, [SCRIPT, ...ARGS, '--report-dir', reportDir, '--quiet'], { cwd: PACKAGE_ROOT });
    const seconds = (performance.now() - t) / 1000;
    expect(result.code, result.stderr).toBe(0);
    const runId = runIdOf(result.stderr);
    expect(runId, result.stderr).toBeDefined();
    expect(await leftovers(runId!)).toEqual([]);

    for (const name of ['capacity-replicas.json', 'capacity-replicas.md']) expect(existsSync(join(reportDir, name)), name).toBe(true);
    const report = JSON.parse(readFileSync(join(reportDir, 'capacity-replicas.json'), 'utf8')) as ReplicasReport;
    expect(report.cpusPerReplica).toBe(0.05);
    expect(report.slo).toBe('p90<=100ms');
    for (const [setup, replicas] of [[report.one, 1], [report.two, 2]] as const) {
      expect(setup.replicas).toBe(replicas);
      expect(setup.quotaCores).toBeCloseTo(0.05 * replicas, 5);
      // A sound answer: a rate that held, the one above it that broke, the SLO as the bound.
      expect(setup.bound, setup.summary).toBe('slo');
      expect(setup.sustained).toBeGreaterThan(0);
      expect(setup.broke).toBeGreaterThan(setup.sustained!);
    }
    expect(report.ratio).toBe(Math.round((report.two.sustained! / report.one.sustained!) * 100) / 100);
    expect(report.efficiency).toBe(Math.round((report.ratio! / 2) * 100) / 100);
    const [low, high] = report.ratioRange!;
    expect(low).toBeLessThanOrEqual(report.ratio!);
    expect(high).toBeGreaterThanOrEqual(report.ratio!);
    expect(report.exitCode).toBe(0);
    expect(report.runs.one?.scenarios[0]?.steps.length).toBeGreaterThan(0);
    expect(report.runs.two?.target.description).toMatch(/two replicas .*behind the balancer at http:\/\/127\.0\.0\.1:\d+/);

    // Printed as well as written.
    expect(result.stdout).toMatch(new RegExp(`one replica .*sustained ${report.one.sustained} req/s, broke at ${report.one.broke} req/s \\(bound: slo`));
    expect(result.stdout).toMatch(new RegExp(`two replicas .*sustained ${report.two.sustained} req/s`));
    expect(result.stdout).toContain(`ratio two/one: ${report.ratio} (${low} to ${high} within the brackets), scaling efficiency`);
    const md = readFileSync(join(reportDir, 'capacity-replicas.md'), 'utf8');
    expect(md).toContain(`ratio two/one: ${report.ratio}`);
    for (const text of [result.stdout, result.stderr, md, JSON.stringify(report)]) expect(text).not.toMatch(KEY_SHAPE);
    console.log(`capacity-replicas: one ${report.one.sustained} req/s, two ${report.two.sustained} req/s, ratio ${report.ratio}, in ${seconds.toFixed(0)} s`);
  }, 600_000);

  it('on SIGTERM while a setup runs, removes its containers, network and volume and exits 143', async () => {
    const child = spawn(process.execPath, [SCRIPT, ...ARGS, '--report-dir', join(dir, 'stopped')], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    const started = new Promise<void>((resolve) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        // The one-replica setup is up and its search under way.
        if (/one replica: tools-list: step 1 /.test(stderr)) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await Promise.race([started, exited]);
    const runId = runIdOf(stderr);
    expect(runId, stderr).toBeDefined();
    expect((await leftovers(runId!)).length, 'the setup is running').toBeGreaterThan(0);
    child.kill('SIGTERM');
    expect(await exited, stderr).toBe(143);
    expect(await leftovers(runId!)).toEqual([]);
    expect(existsSync(join(dir, 'stopped', 'capacity-replicas.json'))).toBe(false);
  }, 300_000);
});
