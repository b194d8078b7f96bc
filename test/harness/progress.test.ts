import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunLedger, searchReporter, type SearchProgress } from '../../src/budget/run-ledger.js';
import type { PlannedCheck } from '../../src/engine/check.js';
import { ConformanceProgress, countRecords, groupLine } from '../../src/engine/progress.js';
import { escapeData, escapeProperty, githubAnnotations } from '../../src/reports/github.js';
import { Secrets } from '../../src/kit/scrub.js';
import type { Results } from '../../src/engine/results.js';
import type { CheckRecord } from '../../src/engine/verdict.js';
import { runCli } from './run-cli.js';

// Escape sequences of a terminal (CSI, a carriage return redraw): none may reach a CI log.
const ESCAPES = /\x1b|\r/;
const GROUP_LINE = /^([a-z-]+(?:\/[a-z-]+)?) checks: (\d+) pass, (\d+) fail, (\d+) warn, (\d+) not testable(?:, \d+ harness error)? \(\d+\.\d s\)$/;

function record(status: CheckRecord['status'], ids: string[], extra: Partial<CheckRecord> = {}): CheckRecord {
  return { name: `check of ${ids[0]}`, suite: 'x', requirementIds: ids, status, observations: [], wire: [], durationMs: 1, ...extra };
}

describe('GitHub workflow command escaping', () => {
  it('escapes % CR LF in data, and : , too in properties', () => {
    expect(escapeData('100% done\r\nnext: a, b')).toBe('100%25 done%0D%0Anext: a, b');
    expect(escapeProperty('row:1, 50%\n')).toBe('row%3A1%2C 50%25%0A');
    // % first: an escape is never escaped twice, and a literal "%0A" survives as text.
    expect(escapeData('%0A')).toBe('%250A');
  });

  it('annotates failing MUST checks as errors, SHOULD as warnings, with the replay command; passing rows not at all', () => {
    const must = record('fail', ['auth-missing-key-401'], { message: 'got 200\nnot 401: 100%', replay: 'npm run conformance -- --only auth-missing-key-401 --seed 1' });
    const results = {
      requirements: [
        { id: 'auth-missing-key-401', level: 'MUST', status: 'fail', checks: [must, record('pass', ['auth-missing-key-401'])] },
        { id: 'discovery-content-type', level: 'SHOULD', status: 'warn', checks: [record('fail', ['discovery-content-type'], { message: 'octet-stream', replay: 'r2' })] },
        { id: 'discovery-llms-txt', level: 'MUST', status: 'pass', checks: [record('pass', ['discovery-llms-txt'])] },
      ],
    } as unknown as Results;
    expect(githubAnnotations(results)).toEqual([
      '::error title=auth-missing-key-401::MUST check of auth-missing-key-401: got 200%0Anot 401: 100%25 (replay: npm run conformance -- --only auth-missing-key-401 --seed 1)',
      '::warning title=discovery-content-type::SHOULD check of discovery-content-type: octet-stream (replay: r2)',
    ]);
  });
});

describe('the progress printer', () => {
  it('counts a failing check as fail on a MUST row, warn otherwise', () => {
    const counts = countRecords([
      record('pass', ['auth-missing-key-401']), record('fail', ['auth-missing-key-401']), record('fail', ['discovery-content-type']),
      record('not-testable', ['auth-missing-key-401']), record('error', ['auth-missing-key-401']),
    ]);
    expect(counts).toEqual({ pass: 1, fail: 1, warn: 1, notTestable: 1, error: 1 });
    expect(groupLine('auth', counts, 1234)).toBe('auth checks: 1 pass, 1 fail, 1 warn, 1 not testable, 1 harness error (1.2 s)');
  });

  it('without a terminal writes plain scrubbed lines only; on a terminal it redraws a status line and clears it at the end', () => {
    const key = `cnv_live_${'Ab3'.repeat(14)}`;
    for (const tty of [false, true]) {
      let out = '';
      const p = new ConformanceProgress({ tty, write: (t) => (out += t), columns: () => 80 });
      p.setSecrets(Secrets.from({ values: [key] }));
      const events = p.events();
      const check = { runName: `check with ${key}` } as PlannedCheck;
      events.checkStart?.(check);
      events.checkEnd?.(check, record('pass', ['auth-missing-key-401']));
      p.line(`auth: 1 pass, 0 fail, 0 warn, 0 not testable (0.1 s) ${key}`);
      p.stop();
      expect(out).not.toContain(key);
      if (tty) {
        expect(out).toMatch(/\r\x1b\[2K0 s, 0\/0 checks; running: check with /);
        expect(out.endsWith('\r\x1b[2K')).toBe(true);
      } else {
        expect(out).not.toMatch(ESCAPES);
        expect(out.split('\n')).toHaveLength(2);
      }
    }
  });
});

describe('the property in progress on the status line', () => {
  it('a search\'s runs so far replace its check\'s name on a terminal; only a terminal asks for them', () => {
    let out = '';
    const p = new ConformanceProgress({ tty: true, write: (t) => (out += t), columns: () => 200 });
    expect(p.live).toBe(true);
    expect(new ConformanceProgress({ tty: false, write: () => undefined }).live).toBe(false);
    p.events().checkStart?.({ runName: 'property: keys' } as PlannedCheck);
    p.search({ check: 'property: keys', search: 'auth-key-edits', runs: 312, done: false });
    expect(out.split('\r\x1b[2K').at(-1)).toMatch(/running: auth-key-edits \(312 runs\)$/);
    p.search({ check: 'property: keys', search: 'auth-key-edits', runs: 640, done: true });
    expect(out.split('\r\x1b[2K').at(-1)).toMatch(/running: property: keys$/);
    // A report that arrives after the end (the posts race) is ignored.
    p.search({ check: 'property: keys', search: 'auth-key-edits', runs: 600, done: false });
    expect(out.split('\r\x1b[2K').at(-1)).toMatch(/running: property: keys$/);
    p.stop();
  });

  it('a search\'s reports reach the run\'s listener, at most every half second and once at the end', () => {
    const heard: SearchProgress[] = [];
    const r = searchReporter(new RunLedger({ waitMs: 0 }, (s) => heard.push(s)), 'property: keys', 'auth-key-edits');
    for (let runs = 1; runs <= 50; runs++) r.run(runs);
    r.done(50);
    expect(heard).toEqual([
      { check: 'property: keys', search: 'auth-key-edits', runs: 1, done: false },
      { check: 'property: keys', search: 'auth-key-edits', runs: 50, done: true },
    ]);
    // Without a listener (no terminal) nothing is reported.
    const quiet = searchReporter(new RunLedger({ waitMs: 0 }), 'c', 's');
    quiet.run(1);
    quiet.done(1);
    expect(heard).toHaveLength(2);
  });
});

describe('conformance command: progress, --quiet and --reporter github', () => {
  it('without a TTY prints one plain line per group on stderr, and stdout keeps the verdict first', async () => {
    const run = await runCli(['--only', 'discovery,origin', '--seed', '1'], 120_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(ESCAPES);
    const groups = run.stderr.split('\n').map((l) => GROUP_LINE.exec(l)).filter((m) => m !== null);
    const byName = new Map(groups.map((m) => [m[1], m]));
    expect([...byName.keys()]).toEqual(expect.arrayContaining(['discovery', 'origin']));
    // The counts are the run's: the group lines add up to the totals of results.json.
    const sum = groups.reduce((a, m) => a + Number(m[2]), 0);
    expect(sum).toBe(run.results!.requirements.flatMap((r) => r.checks).filter((c) => c.status === 'pass').length);
    expect(run.stdout.split('\n')[0]).toMatch(/^conforms: /);
  }, 150_000);

  it('--quiet prints the verdict line and nothing else', async () => {
    const run = await runCli(['--only', 'discovery-llms-txt', '--seed', '1', '--quiet'], 120_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${run.results!.verdict}\n`);
    expect(run.stderr).toBe('');
  }, 150_000);

  it('--reporter github on a mutant prints an escaped ::error for the failing row with its replay command, and no key', async () => {
    const run = await runCli(['--mutant', 'auth-missing-key-accepted', '--only', 'auth-missing-key-401', '--seed', '1', '--reporter', 'github'], 120_000);
    expect(run.code, run.stderr).toBe(1);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^does not conform: /);
    const errors = lines.filter((l) => l.startsWith('::error title=auth-missing-key-401::'));
    const failing = run.results!.requirements.find((r) => r.id === 'auth-missing-key-401')!.checks.filter((c) => c.status === 'fail');
    expect(failing.length).toBeGreaterThan(0);
    expect(errors).toHaveLength(failing.length);
    const c = failing[0]!;
    expect(errors[0]).toBe(`::error title=auth-missing-key-401::${escapeData(`MUST ${c.name}${c.revision ? ` [${c.revision}]` : ''}: ${c.message} (replay: ${c.replay})`)}`);
    expect(errors[0]).toMatch(/\(replay: npm run conformance -- .*--mutant auth-missing-key-accepted --only auth-missing-key-401 --seed 1\)$/);
    const everything = run.stdout + run.stderr + readFileSync(join(run.reportDir, 'results.json'), 'utf8');
    expect(everything).not.toMatch(/_live_[A-Za-z0-9]{16,}/);
  }, 150_000);
});
