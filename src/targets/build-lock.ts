import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const POLL_MS = 500;
/** A lock directory without its holder's pid after this long was left by a process that died creating it. */
const PIDLESS_MS = 10_000;
/** A holder that runs this long is stuck: go on without the lock (as before it existed: builds side by side). */
const MAX_WAIT_MS = 15 * 60_000;

/**
 * Runs `fn` holding a machine-wide lock named `name` (a directory under the temporary directory, holding
 * its holder's pid): one image build at a time, so that a second run that needs the same image waits for
 * the first's build and then finds the image up to date instead of building it again beside it. A lock
 * whose holder no longer runs is taken over.
 */
export async function withMachineLock<T>(name: string, onWait: (holder: string) => void, fn: () => Promise<T>): Promise<T> {
  const dir = join(tmpdir(), `${name}.lock`);
  const started = Date.now();
  let told = false;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = holderOf(dir);
    if (holder === undefined ? Date.now() - started > PIDLESS_MS : !alive(holder)) {
      // Renamed first: of two waiters taking over the same dead lock, one rename succeeds.
      const stale = `${dir}.stale-${process.pid}-${Date.now()}`;
      try {
        renameSync(dir, stale);
        rmSync(stale, { recursive: true, force: true });
      } catch {
        // another waiter took it over first
      }
      continue;
    }
    if (Date.now() - started > MAX_WAIT_MS) return fn();
    if (!told) onWait(holder === undefined ? 'a process starting' : `pid ${holder}`);
    told = true;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  try {
    return await fn();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function holderOf(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
