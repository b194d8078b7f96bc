import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PoolOptions, PoolRunnerInitializer, PoolWorker } from 'vitest/node';

const ENTRY = fileURLToPath(new URL('./entry.mjs', import.meta.url));
/** Threads whose run ended cleanly, waiting for the next run of this process (unref'd: they never hold it open). */
const idle: Worker[] = [];
/** Threads being asked whether their run left anything behind. */
const checking = new Set<Promise<void>>();
const KEEP_AT_MOST = 8;
const ANSWER_MS = 2_000;

type Listener = (arg: unknown) => void;

/**
 * vitest's worker threads, kept from one run to the next of the same process. For the conformance pool
 * (src/cli/conformance-pool-child.ts), whose processes run hundreds of narrow runs: a new thread spent about
 * 0.5 s of CPU loading the harness's modules, fast-check, ajv and undici again, more than most narrow runs
 * spend checking. The suite files themselves still run afresh each time (vitest re-evaluates the files it
 * runs; what they import stays loaded, as between the files of one run with `isolate: false`).
 * A thread is kept only when its run stopped normally and, once the run's last progress update has gone out,
 * nothing of the run is left in it (no socket, no timer, no child); any other thread is terminated, as
 * vitest's own pool terminates them all.
 * Unlike vitest's threads, a kept thread writes straight to this process's stdout and stderr: a stdio stream
 * read by the pool and then left paused holds the process open, and the suites report through vitest's console
 * anyway.
 */
export const keptSuiteThreads: PoolRunnerInitializer = {
  name: 'kept-suite-threads',
  createPoolWorker: (options) => new KeptThread(options),
};

class KeptThread implements PoolWorker {
  readonly name = 'kept-suite-threads';
  private thread?: Worker;
  private readonly attached: [string, Listener][] = [];
  private stopped = false;

  constructor(private readonly options: PoolOptions) {}

  on(event: string, listener: Listener): void {
    this.attached.push([event, listener]);
    this.live.on(event, listener);
  }

  off(event: string, listener: Listener): void {
    const at = this.attached.findIndex(([e, l]) => e === event && l === listener);
    if (at !== -1) this.attached.splice(at, 1);
    this.live.off(event, listener);
  }

  send(message: unknown): void {
    this.live.postMessage(message);
  }

  deserialize(data: unknown): unknown {
    return data;
  }

  async start(): Promise<void> {
    while (idle.length === 0 && checking.size > 0) await Promise.race(checking);
    const thread = (this.thread ??= idle.pop() ?? new Worker(ENTRY, { env: this.options.env, execArgv: this.options.execArgv }));
    thread.ref();
    this.stopped = false;
    thread.on('message', this.onStopped);
  }

  async stop(): Promise<void> {
    const thread = this.thread;
    if (!thread) return;
    this.thread = undefined;
    for (const [event, listener] of this.attached.splice(0)) thread.off(event, listener);
    thread.off('message', this.onStopped);
    // Stopped without vitest's "stopped" answer (a forced stop, a failed teardown): its state is unknown.
    if (!this.stopped) return void (await thread.terminate());
    const check: Promise<void> = leftBehind(thread).then(async (left) => {
      checking.delete(check);
      if (left.length === 0 && idle.length < KEEP_AT_MOST) {
        // After the check's listeners are gone: a listener on the thread's port refs it again.
        thread.unref();
        idle.push(thread);
      } else await thread.terminate();
    }).catch(() => void checking.delete(check));
    checking.add(check);
  }

  private readonly onStopped = (message: { __vitest_worker_response__?: boolean; type?: string; error?: unknown }): void => {
    if (message?.__vitest_worker_response__ === true && message.type === 'stopped' && !message.error) this.stopped = true;
  };

  private get live(): Worker {
    if (!this.thread) throw new Error('kept-suite-threads: the thread is not started');
    return this.thread;
  }
}

/** What is still active in the thread after its run (src/suite-threads/entry.mjs answers); "no answer" if it cannot say. */
function leftBehind(thread: Worker): Promise<string[]> {
  return new Promise((settle) => {
    const timer = setTimeout(() => done(['no answer']), ANSWER_MS);
    const onMessage = (m: { __kept_suite_thread__?: string; active?: string[] }): void => {
      if (m?.__kept_suite_thread__ === 'left') done((m.active ?? []).filter((r) => r !== 'MessagePort'));
    };
    const onExit = (): void => done(['exited']);
    function done(left: string[]): void {
      clearTimeout(timer);
      thread.off('message', onMessage);
      thread.off('exit', onExit);
      settle(left);
    }
    thread.on('message', onMessage);
    thread.once('exit', onExit);
    thread.postMessage({ __kept_suite_thread__: 'left?' });
  });
}
