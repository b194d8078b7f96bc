import { fileURLToPath } from 'node:url';
import { startVitest } from 'vitest/node';
import { keptSuiteThreads } from '../../../src/suite-threads/pool.js';

declare module 'vitest' {
  interface TaskMeta { thread?: { id: number; evaluations: number } }
}

/**
 * Runs the fixture files named on the command line one vitest run after another, in this one process, and
 * prints what each run's test recorded (its thread and how many times its imported module was evaluated).
 * `--pool threads` uses vitest's own threads instead of the kept ones (the control).
 */
const args = process.argv.slice(2);
const pool = args[0] === '--pool' ? args.splice(0, 2)[1] : 'kept';
const root = fileURLToPath(new URL('../../..', import.meta.url));
const seen: unknown[] = [];
for (const file of args) {
  const vitest = await startVitest('test', [], {
    root, include: [`test/harness/kept-threads/${file}.fixture.ts`], watch: false, config: false, isolate: false, maxWorkers: 1,
    pool: pool === 'kept' ? keptSuiteThreads : 'threads',
    reporters: [{ onTestRunEnd: (modules) => { for (const m of modules) for (const t of m.children.allTests()) seen.push({ file, state: t.result().state, ...t.meta().thread }); } }],
  }, { server: { watch: null } });
  await vitest?.close();
}
console.log(JSON.stringify(seen));
