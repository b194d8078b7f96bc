import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCommandLine } from '../src/kit/command-line.js';
import { exitStatus, main, readCommandLine } from '../src/kit/main.js';

const USAGE = `Usage: npm run compare-records -- <before/results.json> <after/results.json>

Compares two conformance runs check by check, as a refactor of the engine must leave them: the same
requirements, and for each the same check records (name, revision, status, message, reason). Times, wire
logs, observations and property run counts are not compared (they differ from run to run of the same code);
a message's numbers of milliseconds are masked for the same reason.

${exitStatus('the records are the same', 'they differ (each difference is printed)')}`;

const files = readCommandLine({ usage: USAGE }, () => {
  const { positionals } = parseCommandLine(USAGE, {}, { positionals: true });
  if (positionals.length !== 2) throw new Error('give two results.json files');
  return positionals.map((p) => resolve(p));
});

interface Check { name: string; revision?: string; status: string; message?: string; reason?: string; notApplicable?: boolean }
interface Results { verdict: string; exitCode: number; requirements: { id: string; status: string; checks: Check[] }[] }

/** Run-to-run noise in a message: durations and counts of runs, ids and seeds a property drew. */
const steady = (text: string | undefined) => text?.replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, '<time>').replace(/after \d+ run\(s\)/g, 'after <n> run(s)');

/** One line per check, sorted: what a refactor must keep. */
function lines(r: Results): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const q of r.requirements) {
    // Records written before `not-applicable` was a status of its own said `not-testable` for such rows.
    const status = q.status === 'not-testable' && q.checks.length > 0 && q.checks.every((c) => c.notApplicable) ? 'not-applicable' : q.status;
    out.set(q.id, [`status ${status}`, ...q.checks.map((c) => JSON.stringify([c.name, c.revision ?? null, c.status, steady(c.message) ?? null, steady(c.reason) ?? null])).sort()]);
  }
  return out;
}

await main({ usage: USAGE }, () => {
  const [before, after] = files.map((f) => JSON.parse(readFileSync(f!, 'utf8')) as Results);
  const a = lines(before!);
  const b = lines(after!);
  const differences: string[] = [];
  if (before!.exitCode !== after!.exitCode) differences.push(`exit code: ${before!.exitCode} → ${after!.exitCode}`);
  for (const id of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(id) ?? [];
    const y = b.get(id) ?? [];
    const gone = x.filter((l) => !y.includes(l));
    const added = y.filter((l) => !x.includes(l));
    if (gone.length === 0 && added.length === 0) continue;
    differences.push(`${id}:`, ...gone.map((l) => `  - ${l}`), ...added.map((l) => `  + ${l}`));
  }
  const checks = (m: Map<string, string[]>) => [...m.values()].reduce((n, l) => n + l.length - 1, 0);
  if (differences.length === 0) {
    console.log(`the same: ${a.size} requirements, ${checks(a)} check records, exit ${after!.exitCode}`);
    return 0;
  }
  console.log(differences.join('\n'));
  console.log(`differ: ${a.size} → ${b.size} requirements, ${checks(a)} → ${checks(b)} check records`);
  return 1;
});
