import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOAD_USAGE, readLoadOptions } from '../../src/cli/load-options.js';
import { UNTHROTTLED } from '../../load/target.js';
import { commandLineOutcome } from '../helpers/command-line-outcome.js';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';
import { expectValidLoad } from './load-schema.js';
import { hasReports, readReport, REPORT_FILES, reportText, runLoad } from './load-run.js';

// `npm run load` end to end, in a child process, with short runs (1-2 s, few connections): behaviour only
// (exit codes, files, schema, counts), never performance numbers.

const root = mkdtempSync(join(tmpdir(), 'load-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('progress without a terminal', () => {
  it('prints a plain line every 2 s (scenario, elapsed, requests, errors so far), and none with --quiet', async () => {
    const dir = join(root, 'progress');
    const run = await runLoad(['--scenario', 'tools-list', '--duration', '5', '--connections', '2', '--report-dir', dir]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('tools-list: '));
    expect(lines.length, run.stderr).toBeGreaterThanOrEqual(1);
    for (const l of lines) expect(l).toMatch(/^tools-list: \d+\.\d of 5 s, \d+ requests sent, \d+ responses, 0 errors so far$/);
    // The counts grow: the last line has seen replies.
    expect(Number(/(\d+) responses/.exec(lines.at(-1)!)![1])).toBeGreaterThan(0);
    // autocannon's bar is for terminals: no escape codes in a CI log.
    expect(run.stderr).not.toMatch(/\x1b|\r/);
  }, 90_000);
});

describe('a clean run against the embedded reference', () => {
  const dir = join(root, 'clean');
  let run: Awaited<ReturnType<typeof runLoad>>;
  beforeAll(async () => {
    run = await runLoad(['--scenario', 'tools-list,schedule-preview', '--duration', '2', '--connections', '3', '--report-dir', dir, '--quiet']);
  }, 90_000);

  it('exits 0 and announces the target before anything else', () => {
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n');
    expect(lines[0]).toMatch(/^target: embedded reference server .* at http:\/\/127\.0\.0\.1:\d+/);
    // --quiet: no progress lines.
    expect(run.stderr).not.toMatch(/^tools-list: .* so far$/m);
    expect(run.stdout).toMatch(/^tools-list: [\d.]+ req\/s/m);
    expect(run.stdout).toMatch(/latency ms: p50 [\d.]+, p90 [\d.]+, p99 [\d.]+, max [\d.]+/);
    expect(run.stdout).toMatch(/^PASS: /m);
    for (const f of REPORT_FILES) expect(run.stdout).toContain(join(dir, f));
  });

  it('writes a load.json that matches reports/load.schema.json, with requests and no errors', () => {
    const report = readReport(dir);
    expectValidLoad(report);
    expect(report.target.kind).toBe('embedded');
    expect(report.settings).toMatchObject({ scenarios: ['tools-list', 'schedule-preview'], durationS: 2, connections: 3, rate: null });
    expect(report.scenarios.map((s) => s.name)).toEqual(['tools-list', 'schedule-preview']);
    for (const s of report.scenarios) {
      expect(s.engine).toBe('autocannon');
      expect(s.requests, s.name).toBeGreaterThan(0);
      expect(s.requestsPerSecond, s.name).toBeGreaterThan(0);
      expect(s.errors, s.name).toBe(0);
      expect(Object.values(s.errorsByKind).every((n) => n === 0), s.name).toBe(true);
      expect(s.latencyMs.samples).toBe(s.requests);
      expect(s.latencyMs.p50).toBeLessThanOrEqual(s.latencyMs.p99);
      expect(s.latencyMs.p99).toBeLessThanOrEqual(s.latencyMs.max);
      expect(s.throughput.length).toBeGreaterThanOrEqual(1);
      expect(s.throughput.reduce((a, t) => a + t.responses, 0)).toBeLessThanOrEqual(s.requests);
    }
    expect(report.scenarios[0]!.streaming).toBeUndefined();
    expect(report.exitCode).toBe(0);
    expect(report.thresholds.every((t) => t.ok)).toBe(true);
    // The default gate (errors==0) and the built-in one (requests>0), on each scenario.
    expect(report.thresholds.map((t) => `${t.scenario} ${t.expression}`).sort()).toEqual(
      ['schedule-preview errors==0', 'schedule-preview requests>0', 'tools-list errors==0', 'tools-list requests>0']);
  });

  it('counts progress events and times the first event and the result of every streaming reply', () => {
    const s = readReport(dir).scenarios[1]!;
    const st = s.streaming!;
    expect(st.responses).toBe(s.requests);
    // "The body carries progress notifications, then ends with a final result event."
    expect(st.progressEvents.min).toBeGreaterThanOrEqual(1);
    expect(st.timeToFirstEventMs.samples).toBe(st.responses);
    expect(st.timeToResultMs.samples).toBe(st.responses);
    // Progress comes first, the result last, and the stream ends after its result.
    expect(st.timeToFirstEventMs.p50).toBeLessThan(st.timeToResultMs.p50);
    expect(st.timeToResultMs.max).toBeLessThanOrEqual(s.latencyMs.max);
  });

  it('writes load.md, load.html and load-junit.xml', () => {
    const md = reportText(dir, 'load.md');
    expect(md).toMatch(/^## Load: PASS/);
    expect(md).toMatch(/\| tools-list \| [\d.]+ \| \d+ \|/);
    expect(md).toContain('### Streaming');
    expect(md).toContain('✅');
    expect(md).not.toContain('❌');
    const html = reportText(dir, 'load.html');
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('<section class="load-report">');
    expect(html).toContain('latency percentiles');
    expect(html).toContain('throughput over time');
    expect(html).not.toMatch(/<script|<link|src="http/);
    const junit = reportText(dir, 'load-junit.xml');
    expect(junit.match(/<testsuite /g)).toHaveLength(1);
    expect(junit.match(/<testcase /g)).toHaveLength(4);
    expect(junit).not.toContain('<failure');
  });
});

// The table is judged in this process (commandLineOutcome: the command's option reader, then main()'s
// describeFailure); the first case after it starts the command itself.
describe.concurrent('usage errors exit 2 before any traffic', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['an unknown option', ['--bogus'], /Unknown option '--bogus'/],
    ['an empty scenario selection', ['--scenario', ' , '], /--scenario needs at least one scenario name/],
    ['an unknown scenario', ['--scenario', 'tools-list,nope'], /unknown scenario "nope"; known: tools-list/],
    ['a duration past the cap', ['--duration', '301'], /--duration must be from 1 to 300/],
    ['a zero duration', ['--duration', '0'], /--duration must be from 1 to 300/],
    ['connections past the cap', ['--connections', '1001'], /--connections must be from 1 to 1000/],
    ['a rate past the cap', ['--rate', '50001'], /--rate must be from 1 to 50000/],
    ['max requests past the cap', ['--max-requests', '2000001'], /--max-requests must be from 1 to 2000000/],
    ['a non-numeric value', ['--connections', '1e3'], /--connections must be a whole number/],
    ['an empty number (Number("") is 0)', ['--duration', ''], /--duration must be a whole number from 1 to 300 seconds \(got ""\)/],
    ['an empty rate', ['--rate', ''], /--rate must be a number from 1 to 50000/],
    ['a negative value', ['--connections=-1'], /--connections must be a whole number from 1 to 1000/],
    ['an empty key', ['--api-key', ''], /--api-key is empty/],
    ['a target kind of another command', ['--target', 'stdio'], /--target must be embedded, url or container \(got "stdio"\)/],
    ['a malformed threshold', ['--threshold', 'p99<<3'], /threshold "p99<<3" is not/],
    ['an unknown metric', ['--threshold', 'p42<3'], /unknown metric "p42"/],
    ['a threshold on a scenario not run', ['--scenario', 'tools-list', '--threshold', 'mix:errors==0'], /names scenario "mix", which this run does not include/],
    ['a streaming metric without a streaming scenario', ['--scenario', 'tools-list', '--threshold', 'ttfe-p99<100'], /has a streaming request/],
    ['a regression gate without a baseline', ['--threshold', 'regression<=20%'], /give --baseline/],
    ['a missing baseline file', ['--baseline', '/nonexistent/load.json'], /--baseline \/nonexistent\/load.json/],
    ['a baseline that is no load.json', ['--baseline', 'package.json'], /is not a load.json/],
    ['--target url without --base-url', ['--target', 'url'], /--target url needs --base-url/],
    ['a mutant on a url target', ['--base-url', 'http://127.0.0.1:9', '--mutant', 'load-500-every-nth'], /--mutant works with the embedded target only/],
    ['an unknown mutant', ['--mutant', 'load-500-every-nt'], /unknown mutant "load-500-every-nt"; the nearest of the \d+ known: load-500-every-nth, /],
    ['--baseline-url beside --baseline', ['--base-url', 'http://127.0.0.1:9', '--baseline-url', 'http://127.0.0.1:8', '--baseline', 'x.json'], /--baseline-url and --baseline are two ways to compare/],
    ['--baseline-url with the embedded target', ['--target', 'embedded', '--baseline-url', 'http://127.0.0.1:8'], /--baseline-url compares two servers: give the candidate as --target url/],
    ['--baseline-url that is no http URL', ['--base-url', 'http://127.0.0.1:9', '--baseline-url', 'ftp://127.0.0.1:8'], /--baseline-url must be an http\(s\) URL/],
    ['--baseline-url with 2 pairs (no noise to measure)', ['--base-url', 'http://127.0.0.1:9', '--baseline-url', 'http://127.0.0.1:8', '--rounds', '2'], /--rounds must be from 3 to 9/],
    ['--pairing without --baseline-url', ['--pairing', 'together'], /--pairing says how the rounds of --baseline-url pair up/],
    ['an unknown pairing', ['--base-url', 'http://127.0.0.1:9', '--baseline-url', 'http://127.0.0.1:8', '--pairing', 'abab'], /--pairing must be together or alternate/],
  ];
  it.each(cases)('%s', (_name, args, message) => {
    const dir = join(root, `usage-${Math.random().toString(36).slice(2)}`);
    const run = commandLineOutcome((onSecrets) => readLoadOptions([...args, '--report-dir', dir], onSecrets), LOAD_USAGE);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/^error: [^\n]*\n\nUsage: npm run load/);
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(hasReports(dir)).toBe(false);
  });

  it('the command itself: bad usage exits 2 with the message and the usage, before any traffic', async () => {
    const dir = join(root, 'usage-command');
    const run = await runLoad(['--duration', '0', '--report-dir', dir]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/^error: --duration must be from 1 to 300[^\n]*\n\nUsage: npm run load/);
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(run.stderr).not.toContain('target:');
    expect(hasReports(dir)).toBe(false);
  }, 90_000);

  // Alone, not beside the cases above: it times the command (an attempt to connect would hang).
  it.sequential('refuses a non-loopback target without --allow-remote, before connecting', async () => {
    const dir = join(root, 'remote');
    // With a key given, nothing is bootstrapped: a connection attempt to this unroutable address would hang.
    // --duration 60: a run that tried to connect would last the whole minute (autocannon keeps trying for its
    // duration), so half of it tells the two apart on any machine: a bound on hangs, not on start-up speed.
    const run = await runLoad(['--target', 'url', '--base-url', 'http://10.255.255.1:9', '--duration', '60', '--report-dir', dir], { env: { MCP_API_KEY: 'cvs_live_notarealkeynotarealkeynotarealkey' }, timeoutMs: 80_000 });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/error: http:\/\/10\.255\.255\.1:9 is not a loopback address .*--allow-remote/);
    expect(run.stderr).not.toMatch(/^target:/m);
    expect(run.ms).toBeLessThan(30_000);
    expect(hasReports(dir)).toBe(false);
  }, 90_000);

  it('exits 2 when the target cannot be reached', async () => {
    const dir = join(root, 'unreachable');
    const run = await runLoad(['--target', 'url', '--base-url', 'http://127.0.0.1:9', '--report-dir', dir], { env: { MCP_API_KEY: 'cvs_live_notarealkeynotarealkeynotarealkey' } });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/error: cannot reach http:\/\/127\.0\.0\.1:9\/api\/mcp\/v1/);
    // One line, no stack trace, no usage: the target is the problem, not the command line.
    expect(run.stderr.trimEnd().split('\n').filter((l) => !l.startsWith('target: '))).toHaveLength(1);
    expect(run.stderr).not.toContain('Usage:');
    expect(hasReports(dir)).toBe(false);
  }, 60_000);
});

describe('the API key never shows', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    // A reference server of the test's own, so the test knows the key it hands to the command.
    server = await startReference(UNTHROTTLED);
  });
  afterAll(async () => {
    await server.close();
  });

  it('in stdout, stderr or any report file of a url run given the key in MCP_API_KEY', async () => {
    const { apiKey } = await bootstrap(server);
    const secret = apiKey.split('_live_')[1]!;
    expect(secret.length).toBeGreaterThan(16);
    const dir = join(root, 'key');
    const run = await runLoad(['--target', 'url', '--base-url', server.baseUrl, '--scenario', 'tools-list,schedule-preview', '--duration', '1', '--connections', '2', '--report-dir', dir], { env: { MCP_API_KEY: apiKey } });
    expect(run.code, run.stderr).toBe(0);
    expect(readReport(dir).scenarios.every((s) => s.requests > 0 && s.errors === 0)).toBe(true);
    for (const [name, text] of [['stdout', run.stdout], ['stderr', run.stderr], ...REPORT_FILES.map((f) => [f, reportText(dir, f)])] as const) {
      expect(text, name).not.toContain(secret);
      expect(text, name).not.toMatch(/_live_[A-Za-z0-9]{16,}/);
    }
  }, 60_000);
});

describe('a throttled key', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    // The trial plan (20 req/s, burst 40): a closed loop of four connections is refused almost always.
    server = await startReference();
  });
  afterAll(() => server.close());

  // A rate made of 429s is not throughput: the scenario's first line says the run mostly failed, before its req/s.
  it('headlines a run whose replies are mostly 429 as MOSTLY FAILED, with the kinds, and fails', async () => {
    const { apiKey } = await bootstrap(server);
    const run = await runLoad(['--target', 'url', '--base-url', server.baseUrl, '--scenario', 'tools-list', '--duration', '2', '--connections', '4', '--report-dir', join(root, 'throttled'), '--quiet'], { env: { MCP_API_KEY: apiKey } });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout.split('\n')[0]).toMatch(/^tools-list: MOSTLY FAILED: \d+\.\d % of \d+ responses were errors \(http-429 \d+.*\); the [\d.]+ req\/s below count them$/);
    const s = readReport(join(root, 'throttled')).scenarios[0]!;
    expect(s.errorsByKind['http-429'] / s.requests).toBeGreaterThan(0.5);
  }, 60_000);
});

describe('rounds', () => {
  // Two back-to-back rounds on a shared machine differ by half: a baseline compared on one sample gates on noise.
  it('--rounds 3 reports each scenario\'s round of median req/s, lists the three, and validates', async () => {
    const dir = join(root, 'rounds');
    const run = await runLoad(['--scenario', 'tools-list', '--duration', '1', '--connections', '2', '--rounds', '3', '--report-dir', dir, '--quiet']);
    expect(run.code, run.stderr).toBe(0);
    const report = readReport(dir);
    expectValidLoad(report);
    expect(report.settings.rounds).toBe(3);
    const s = report.scenarios[0]!;
    expect(s.rounds).toHaveLength(3);
    const sorted = s.rounds!.map((r) => r.requestsPerSecond).sort((a, b) => a - b);
    expect(s.requestsPerSecond).toBe(sorted[1]);
    expect(run.stdout).toMatch(/^ {2}rounds: [\d.]+ req\/s p99 [\d.]+ ms; [\d.]+ req\/s p99 [\d.]+ ms; [\d.]+ req\/s p99 [\d.]+ ms \(the median round above; errors count every round\)$/m);
    expect(run.stderr.match(/^tools-list: round \d of 3$/gm)).toHaveLength(3);
  }, 90_000);
});

describe('--baseline-url', () => {
  it('defaults to 5 pairs of rounds run together, with the regression gate among the default thresholds', () => {
    const o = readLoadOptions(['--base-url', 'http://127.0.0.1:9', '--baseline-url', 'http://127.0.0.1:8', '--report-dir', join(root, 'baseline-url')], () => undefined);
    expect(o).toMatchObject({ kind: 'url', baselineUrl: 'http://127.0.0.1:8', rounds: 5, pairing: 'together', baseline: undefined });
    expect(o.thresholds.map((t) => `${t.expression}:${t.origin}`)).toEqual(['errors==0:default', 'regression<=20%:default']);
  });
});
