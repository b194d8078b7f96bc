import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFORMANCE_NODE_ARGS, readResults, type ChildRun } from './spawn-conformance.js';

export interface PoolRequest { id: number; args: string[] }
export interface PoolReply { id: number; code: number; error?: string }

const CHILD = fileURLToPath(new URL('./conformance-pool-child.ts', import.meta.url));

interface Worker { child: ChildProcess; job?: Job; stderr: string }
interface Job { request: PoolRequest; timeoutMs: number; settle: (reply: PoolReply) => void; timer?: NodeJS.Timeout }

/**
 * Conformance runs side by side, `size` processes at a time, each process running many runs one after the
 * other (src/cli/conformance-pool-child.ts). For the harness's own tests and the mutation score, which start
 * hundreds of narrow runs: a process per run spends more on starting node, tsx and the module graph than on
 * the run. A run's outcome is the command's: its exit code and the results.json of its report directory.
 */
export class ConformancePool {
  private readonly workers: (Worker | undefined)[];
  private readonly queue: Job[] = [];
  private nextId = 0;

  constructor(size: number) {
    this.workers = Array.from({ length: size }, () => undefined);
  }

  /** Runs `npm run conformance -- <args>` in one of the pool's processes; a fresh report dir unless given. */
  async run(args: string[], timeoutMs = 120_000, reportDir = mkdtempSync(join(tmpdir(), 'conformance-'))): Promise<ChildRun> {
    const started = performance.now();
    const request: PoolRequest = { id: this.nextId++, args: ['--report-dir', reportDir, ...args] };
    const reply = await new Promise<PoolReply>((settle) => {
      this.queue.push({ request, timeoutMs, settle });
      this.dispatch();
    });
    return { code: reply.code, stdout: '', stderr: reply.error ?? '', results: readResults(reportDir), reportDir, durationMs: Math.round(performance.now() - started) };
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map(async (w, slot) => {
      this.workers[slot] = undefined;
      if (!w || w.child.exitCode !== null || w.child.signalCode !== null) return;
      const exited = new Promise((resolve) => w.child.once('exit', resolve));
      w.child.send({ type: 'stop' });
      await exited;
    }));
  }

  /** Gives queued runs to idle processes, starting (or replacing) a process as needed. */
  private dispatch(): void {
    for (let slot = 0; slot < this.workers.length && this.queue.length > 0; slot++) {
      const worker = this.workers[slot] ?? (this.workers[slot] = this.start(slot));
      if (worker.job) continue;
      const job = this.queue.shift()!;
      worker.job = job;
      // A run that hangs takes its process with it; the next run gets a new one.
      job.timer = setTimeout(() => worker.child.kill('SIGKILL'), job.timeoutMs);
      worker.child.send(job.request);
    }
  }

  private start(slot: number): Worker {
    const child = fork(CHILD, [], { execArgv: CONFORMANCE_NODE_ARGS, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    const worker: Worker = { child, stderr: '' };
    const finish = (reply: PoolReply): void => {
      const job = worker.job;
      if (!job || job.request.id !== reply.id) return;
      clearTimeout(job.timer);
      worker.job = undefined;
      job.settle(reply);
      this.dispatch();
    };
    child.stderr!.on('data', (d: Buffer) => (worker.stderr = (worker.stderr + d.toString()).slice(-4000)));
    child.on('message', (reply: PoolReply) => finish(reply));
    child.on('exit', (code, signal) => {
      if (this.workers[slot] === worker) this.workers[slot] = undefined;
      const why = worker.stderr.trim().split('\n').slice(-3).join(' | ');
      if (worker.job) finish({ id: worker.job.request.id, code: 2, error: `error: the pool process ended (${signal ?? `exit ${code}`}) before the run did${why ? `: ${why}` : ''}` });
    });
    return worker;
  }
}
