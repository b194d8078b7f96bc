/**
 * The capacity command's line: bad input exits 2 with the message and the usage, before any traffic; what
 * it reads is what the search gets.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CAPACITY_USAGE, readCapacityOptions } from '../../src/cli/capacity-options.js';
import { commandLineOutcome } from '../helpers/command-line-outcome.js';

const dir = mkdtempSync(join(tmpdir(), 'capacity-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('capacity command line', () => {
  it.each([
    [['--slo', 'p99<75ms'], /^error: SLO term "p99<75ms" is not one of/m],
    [['--slo', 'ttfr-p99<=1s'], /^error: tools-list does not stream: ttfr-p99<=1s cannot be judged on it$/m],
    [['--scenario', 'nope'], /^error: unknown scenario "nope"; known: tools-list, /m],
    [['--scenario', ''], /^error: --scenario needs at least one scenario name$/m],
    [['--max-rate', '60000'], /^error: --max-rate must be .*50000/m],
    [['--start-rate', '500', '--max-rate', '100'], /^error: --start-rate \(500\) is above --max-rate \(100\)$/m],
    [['--arrivals', 'bursty'], /^error: --arrivals must be constant or poisson/m],
    [['--soak', '1h'], /^error: --soak must be seconds, such as 60, 60s or 2m \(got "1h"\)$/m],
    [['--soak', '20m'], /^error: --soak must be from 5 to 300 seconds \(got 1200\)$/m],
    [['--soak-fraction', '0.5'], /^error: --soak-fraction needs --soak <seconds>$/m],
    [['--window', '5', '--max-window', '2'], /^error: --max-window \(2 s\) is shorter than --window \(5 s\)$/m],
    [['--slo', 'p99<=1s', '--slo-file', 'x.json'], /^error: --slo and --slo-file: give one/m],
    [['--target', 'stdio'], /^error: --target must be embedded, url or container \(got "stdio"\)$/m],
    [['--api-key', 'x'], /^error: --target embedded bootstraps its own key: --api-key is for --target url$/m],
    [['--bogus'], /^error: Unknown option '--bogus'/m],
  ])('bad usage %j exits 2 with the message and the usage', (args, message) => {
    const run = commandLineOutcome((onSecrets) => readCapacityOptions([...args, '--report-dir', join(dir, 'usage')], onSecrets), CAPACITY_USAGE);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain('\n\nUsage: npm run capacity');
    expect(run.stderr.match(/^error: /gm)).toHaveLength(1);
  });

  it('reads the search as given, and per-scenario SLOs from a file', () => {
    const file = join(dir, 'slo.json');
    writeFileSync(file, JSON.stringify({ default: 'p95<=40ms', 'schedule-preview': 'ttfr-p99<=2s,errors<=1%' }));
    const o = readCapacityOptions(['--scenario', 'tools-list,schedule-preview', '--slo-file', file, '--max-rate', '800', '--start-rate', '20', '--tolerance', '2', '--arrivals', 'poisson', '--seed', '7', '--soak', '1m', '--soak-fraction', '0.5', '--no-calibrate', '--no-overload', '--report-dir', dir], () => undefined);
    expect(o.scenarios.map((s) => s.name)).toEqual(['tools-list', 'schedule-preview']);
    expect(o.slos.get('tools-list')!.text).toBe('p95<=40ms');
    expect(o.slos.get('schedule-preview')!.text).toBe('ttfr-p99<=2s,errors<=1%');
    expect(o).toMatchObject({ maxRate: 800, startRate: 20, tolerance: 0.02, arrivals: 'poisson', seed: 7, seedGiven: true, soakS: 60, soakFraction: 0.5, calibrate: false, overload: false });
  });

  it('a key from the environment is a secret to scrub before anything is printed', () => {
    const key = `cnv_live_${'k'.repeat(40)}`;
    const before = process.env.MCP_API_KEY;
    process.env.MCP_API_KEY = key;
    try {
      const run = commandLineOutcome((onSecrets) => readCapacityOptions(['--base-url', 'http://127.0.0.1:9', '--slo', `p99<=${key}`, '--report-dir', dir], onSecrets), CAPACITY_USAGE);
      expect(run.code).toBe(2);
      expect(run.stderr).not.toContain(key);
      expect(run.stderr).toMatch(/REDACTED|<key#\d+>/);
    } finally {
      if (before === undefined) delete process.env.MCP_API_KEY;
      else process.env.MCP_API_KEY = before;
    }
  });
});
