#!/usr/bin/env node
// `npm run test:busy [-- vitest args]`: the project's tests on a starved machine. As many busy-looping
// processes as there are cores compete with the tests for the whole run (at the same priority), so every
// server, client and harness run gets about half the CPU it would have alone: slower than the 1.7x slower CI
// machine of issue 33. A test that passes only on a quiet machine depends on speed, not on behaviour.
//
// BUSY_PROCS sets how many competitors (default: one per core); the arguments after `--` go to vitest
// (`npm run test:busy -- test/harness/reference-conforms.test.ts`). Without arguments it runs `npm test`.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const count = Number(process.env.BUSY_PROCS ?? availableParallelism());
if (!Number.isInteger(count) || count < 0) {
  console.error(`test:busy: BUSY_PROCS must be a whole number, not ${JSON.stringify(process.env.BUSY_PROCS)}`);
  process.exit(2);
}
// Each competitor spins on the CPU and never yields; it ends itself after an hour should this script be killed -9.
const spinner = 'const end = Date.now() + 3_600_000; let x = 0; while (Date.now() < end) { for (let i = 0; i < 1e6; i++) x = (x * 31 + i) | 0; }';
const busy = Array.from({ length: count }, () => spawn(process.execPath, ['-e', spinner], { stdio: 'ignore' }));
const stopBusy = () => {
  for (const child of busy) child.kill('SIGKILL');
};
process.on('exit', stopBusy);

const args = process.argv.slice(2);
const started = performance.now();
console.error(`test:busy: ${count} busy process(es) compete for ${availableParallelism()} core(s) during the tests`);
const tests = args.length > 0
  ? spawn('npx', ['vitest', 'run', ...args], { stdio: 'inherit' })
  : spawn('npm', ['test'], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => tests.kill(signal));
tests.on('close', (code, signal) => {
  stopBusy();
  console.error(`test:busy: the tests took ${((performance.now() - started) / 1000).toFixed(1)} s of wall beside ${count} busy process(es)`);
  process.exit(code ?? (signal ? 1 : 0));
});
