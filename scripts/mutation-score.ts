import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MUTANTS } from '../service/mutants/index.js';
import { parseCommandLine } from '../src/kit/command-line.js';
import { exitStatus, main, readCommandLine } from '../src/kit/main.js';
import { numberOption } from '../src/kit/options.js';
import { ConformanceRuns } from './conformance-runs.js';

const USAGE = `Usage: npm run mutation-score -- [--report-dir <dir>] [--jobs <n>]

Runs the conformance suite against every deliberately broken variant of the service (service/mutants),
each restricted to the requirements it violates, and reports how many the harness catches.
Writes mutation.json and mutation.md to the report directory (default reports/latest) and appends
the score to summary.md when one is there.
  --jobs <n>  conformance runs at once, side by side in this process, each in its own scope (default 2, at most 8)

${exitStatus('every mutant is caught', 'a mutant survives')}`;

const { dir, jobs } = readCommandLine({ usage: USAGE }, () => {
  const { values } = parseCommandLine(USAGE, { 'report-dir': { type: 'string' }, jobs: { type: 'string' } });
  return { dir: resolve(values['report-dir'] ?? 'reports/latest'), jobs: numberOption('--jobs', values.jobs, { integer: true, min: 1, max: 8, fallback: 2 }) };
});

interface Outcome { name: string; violates: string[]; description: string; caught: boolean; statuses: Record<string, string>; durationMs: number; error?: string }

const outcomes: Outcome[] = [];
const pool = new ConformanceRuns(jobs);
async function judge(m: (typeof MUTANTS)[number]): Promise<void> {
  const run = await pool.run(['--mutant', m.name, '--only', m.violates.join(','), '--seed', '1']);
  const statuses = Object.fromEntries((run.results?.requirements ?? []).filter((r) => m.violates.includes(r.id)).map((r) => [r.id, r.status]));
  const caught = Object.values(statuses).some((s) => s === 'fail' || s === 'warn');
  outcomes.push({ name: m.name, violates: m.violates, description: m.description, caught, statuses, durationMs: run.durationMs, ...(!run.results?.requirements.length && { error: run.stderr.trim().split('\n').slice(-3).join(' ') }) });
  console.error(`${caught ? 'caught  ' : 'SURVIVED'} ${m.name} (${run.durationMs} ms)`);
}
await main({ usage: USAGE }, async () => {
  const started = performance.now();
  await Promise.all(MUTANTS.map(judge));
  outcomes.sort((a, b) => a.name.localeCompare(b.name));
  const caught = outcomes.filter((o) => o.caught).length;
  const score = outcomes.length === 0 ? 0 : caught / outcomes.length;
  const line = `Mutation score: ${caught}/${outcomes.length} mutants caught (${(score * 100).toFixed(1)} %) in ${((performance.now() - started) / 1000).toFixed(1)} s`;
  const md = [
    '## Mutation score', '', line, '',
    '| Mutant | Violates | Caught | Statuses |', '|---|---|---|---|',
    ...outcomes.map((o) => `| ${o.name} | ${o.violates.join(', ')} | ${o.caught ? 'yes' : '**no**'} | ${Object.entries(o.statuses).map(([k, v]) => `${k}: ${v}`).join('; ') || o.error || ''} |`),
    '',
  ].join('\n');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'mutation.json'), `${JSON.stringify({ total: outcomes.length, caught, score, mutants: outcomes }, null, 2)}\n`);
  writeFileSync(join(dir, 'mutation.md'), md);
  if (existsSync(join(dir, 'summary.md'))) appendFileSync(join(dir, 'summary.md'), `\n${md}`);
  console.log(line);
  for (const o of outcomes.filter((x) => !x.caught)) console.log(`  survived: ${o.name} — ${o.description}`);
  return caught === outcomes.length && outcomes.length > 0 ? 0 : 1;
});
