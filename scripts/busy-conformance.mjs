#!/usr/bin/env node
// `node scripts/busy-conformance.mjs [runs]`: the faithful reference judged on a starved machine (issue 33). One
// busy-looping process per core competes with the harness for the whole time; each round runs the default
// embedded run, then a url run against `npm run reference` (its default limits), each in a process of its own.
// Every run must conform with no failure, no warning and no harness error; the table says what each took and
// how busy the harness found its machine. Exit 1 when a run did not. Needs `npm run build` first.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 10);
if (!Number.isInteger(runs) || runs < 1) {
  console.error('usage: node scripts/busy-conformance.mjs [runs (default 10)]');
  process.exit(2);
}
const spinner = 'const end = Date.now() + 3_600_000; let x = 0; while (Date.now() < end) { for (let i = 0; i < 1e6; i++) x = (x * 31 + i) | 0; }';
const busy = Array.from({ length: availableParallelism() }, () => spawn(process.execPath, ['-e', spinner], { stdio: 'ignore' }));
let reference;
const stopAll = () => {
  for (const child of busy) child.kill('SIGKILL');
  reference?.kill('SIGTERM');
};
process.on('exit', stopAll);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

/** Runs the compiled conformance command; resolves with its exit code, results.json and wall time. */
function conformance(args) {
  const dir = mkdtempSync(join(tmpdir(), 'busy-conformance-'));
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--max-semi-space-size=32', 'dist/src/cli/conformance.js', '--report-dir', dir, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      let results;
      try {
        results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
      } catch { /* exit 2 before reports */ }
      resolve({ code, results, stderr, seconds: (performance.now() - started) / 1000 });
    });
  });
}

/** `npm run reference` on a free port: resolves with its base URL once it prints it. */
function startReference() {
  return new Promise((resolve, reject) => {
    reference = spawn(process.execPath, ['dist/service/reference-server/main.js', '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
    reference.stdout.on('data', (d) => {
      const url = /http:\/\/127\.0\.0\.1:\d+/.exec(String(d))?.[0];
      if (url) resolve(url);
    });
    reference.on('exit', () => reject(new Error('the reference server exited before it listened')));
  });
}

const rows = [];
let bad = 0;
for (let round = 1; round <= runs; round++) {
  const baseUrl = await startReference();
  for (const [kind, args] of [['embedded', []], ['url', ['--target', 'url', '--base-url', baseUrl]]]) {
    const run = await conformance(args);
    const r = run.results;
    const odd = r ? r.requirements.filter((x) => x.status === 'fail' || x.status === 'warn' || x.status === 'error').map((x) => `${x.id} (${x.status})`) : [run.stderr.trim().split('\n').at(-1)];
    if (run.code !== 0 || odd.length > 0) bad++;
    rows.push({ round, kind, exit: run.code, seconds: run.seconds.toFixed(1), notTestable: r?.totals.notTestable ?? '-', stalls: r?.harness ? `${r.harness.stalls.count} (${(r.harness.stalls.totalMs / 1000).toFixed(1)} s)` : '-', load: r?.harness?.loadAverage1m ?? '-', odd: odd.join(', ') || '-' });
    const last = rows.at(-1);
    console.log(`${last.round}\t${last.kind}\texit ${last.exit}\t${last.seconds} s\tnot testable ${last.notTestable}\tstalls ${last.stalls}\tload ${last.load}\t${last.odd}`);
  }
  reference.kill('SIGTERM');
  await new Promise((r) => reference.once('close', r));
}
console.log(`${rows.length - bad} of ${rows.length} runs conformed beside ${busy.length} busy process(es)`);
process.exit(bad === 0 ? 0 : 1);
