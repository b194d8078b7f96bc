import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { RequirementResult, Results } from '../../src/engine/results.js';
import { htmlEscape, xmlEscape } from '../../src/kit/escape.js';
import { mdCode, mdText } from '../../src/kit/markdown.js';
import { scrubKeyShapes } from '../../src/kit/scrub.js';
import { REPORT_FILES } from '../../src/reports/index.js';
import { renderJunit } from '../../src/reports/junit.js';
import { renderHtml } from '../../src/reports/report-html.js';
import { consoleFindings } from '../../src/reports/console-text.js';
import { renderSummary, SUMMARY_LIMIT } from '../../src/reports/summary-md.js';
import type { CheckRecord } from '../../src/engine/verdict.js';
import type { Exchange } from '../../src/wire/exchange.js';
import { runCli } from './run-cli.js';
import { expectValid, validate } from '../helpers/results-schema.js';

// ---------------------------------------------------------------------------------------------------
// Hand-built results

const NASTY = `</script><script>alert("x&y")</script> 'q' <b>|pipe|</b> @someone #12 *em* \`tick\` \u0000\u0007\u001b[31m \uFFFE \uD800 é 😀`;
/** A key-shaped value that must never reach a report in plain text (upstream redaction missed it). */
const LEAKED_KEY = `cnv_live_${'Ab3'.repeat(13)}Z`;
const KEY_RE = /_live_[A-Za-z0-9]{40}/;

function exchange(over: Partial<Exchange> = {}): Exchange {
  return {
    request: { method: 'POST', url: 'http://127.0.0.1:1/api/mcp/v1', headers: { authorization: 'Bearer [REDACTED]', 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/call"}' },
    response: {
      status: 200, headers: { 'content-type': 'text/event-stream' }, headersAt: 2.5, endAt: 171.25, closed: true,
      events: [
        { at: 3.1, event: 'message', data: '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1}}' },
        { at: 44.9, data: '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":2}}' },
        { at: 171.2, id: '7', data: `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":${JSON.stringify(NASTY)}}]}}` },
      ],
    },
    startedAt: '2026-01-02T03:04:05.678Z',
    ...over,
  };
}

function check(over: Partial<CheckRecord> & { requirementIds: string[] }): CheckRecord {
  return { name: 'a check', suite: 'suites/demo.suite.ts > demo', status: 'pass', observations: [], wire: [], durationMs: 12, ...over };
}

function req(id: string, group: string, level: RequirementResult['level'], status: RequirementResult['status'], checks: CheckRecord[], over: Partial<RequirementResult> = {}): RequirementResult {
  return { id, group, level, source: `service.md §${group}`, text: `The ${id} sentence, quoted.`, status, checks, ...over };
}

/** One run touching every status, both groups, the baseline, and hostile strings. */
function sample(strict = false): Results {
  const requirements: RequirementResult[] = [
    req('auth-pass-ok', 'auth', 'MUST', 'pass', [check({ requirementIds: ['auth-pass-ok'], name: 'passes', observations: ['server said hi'] })]),
    req('auth-must-fails', 'auth', 'MUST', 'fail', [
      check({ requirementIds: ['auth-must-fails'], name: 'passing half', durationMs: 5 }),
      check({
        requirementIds: ['auth-must-fails'], name: `fails ${NASTY}`, status: 'fail', durationMs: 30,
        message: `answered 200, not 401 ${NASTY} key ${LEAKED_KEY}`, expected: 401, actual: { status: 200, body: NASTY },
        wire: [exchange(), exchange({ response: undefined, error: 'connect ECONNREFUSED' })],
        replay: 'npm run conformance -- --target embedded --only auth-must-fails --seed 1',
      }),
    ]),
    req('stream-should-warns', 'streaming', 'SHOULD', 'warn', [check({
      requirementIds: ['stream-should-warns'], name: 'progress is spaced', status: 'fail', message: 'events arrived together',
      expected: '>= 20 ms apart', actual: [0, 1, 2], wire: [exchange()], replay: 'npm run conformance -- --only stream-should-warns --seed 1',
    })]),
    req('stream-not-testable', 'streaming', 'MUST', 'not-testable', [check({ requirementIds: ['stream-not-testable'], name: 'needs a cron', status: 'not-testable', reason: 'the profile has no streaming recipe' })]),
    req('stream-untested-rule', 'streaming', 'MUST', 'untested', []),
    req('auth-known-failure', 'auth', 'MUST', 'fail', [check({ requirementIds: ['auth-known-failure'], name: 'known', status: 'fail', message: 'still broken', expected: 1, actual: 2 })], { baseline: 'expected-failure' }),
  ];
  const totals = { pass: 1, fail: 2, warn: 1, notTestable: 1, untested: 1, error: 0 };
  return {
    schemaVersion: 1, tool: { name: 'mcp-canvas-harness', version: '0.1.0' },
    target: { kind: 'embedded', baseUrl: 'http://127.0.0.1:1', mcpUrl: 'http://127.0.0.1:1/api/mcp/v1' },
    profile: 'reference', protocolRevision: '2025-11-25', seed: 1, strict, startedAt: '2026-01-02T03:04:05.000Z', durationMs: 1234,
    requirements, totals,
    verdict: strict ? 'does not conform: 2 requirement(s) fail: auth-must-fails, stream-should-warns' : 'does not conform: 1 requirement(s) fail: auth-must-fails',
    exitCode: 1,
  };
}

function passing(): Results {
  const r = sample();
  r.requirements = [r.requirements[0]!];
  r.totals = { pass: 1, fail: 0, warn: 0, notTestable: 0, untested: 0, error: 0 };
  r.verdict = 'conforms: no MUST requirement fails';
  r.exitCode = 0;
  return r;
}

// ---------------------------------------------------------------------------------------------------
// A real XML parser (Python's expat, installed by scripts/setup.sh): well-formedness and the tree.

interface XmlNode { tag: string; attrs: Record<string, string>; text: string; children: XmlNode[] }

function parseXml(xml: string): XmlNode {
  const script = `
import json, sys, xml.etree.ElementTree as ET
def node(e): return {"tag": e.tag, "attrs": dict(e.attrib), "text": e.text or "", "children": [node(c) for c in e]}
print(json.dumps(node(ET.fromstring(sys.stdin.buffer.read()))))`;
  const out = spawnSync('python3', ['-c', script], { input: Buffer.from(xml, 'utf8'), encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`not well-formed XML: ${out.stderr}`);
  return JSON.parse(out.stdout) as XmlNode;
}

const kids = (n: XmlNode, tag: string) => n.children.filter((c) => c.tag === tag);
const int = (n: XmlNode, a: string) => Number(n.attrs[a]);

/** tests/failures/skipped/time on every level agree with the testcases below them. */
function expectConsistentCounts(root: XmlNode): void {
  let tests = 0; let failures = 0; let skipped = 0;
  for (const suite of kids(root, 'testsuite')) {
    const cases = kids(suite, 'testcase');
    const f = cases.filter((c) => kids(c, 'failure').length > 0).length;
    const s = cases.filter((c) => kids(c, 'skipped').length > 0).length;
    expect(int(suite, 'tests'), suite.attrs.name).toBe(cases.length);
    expect(int(suite, 'failures'), suite.attrs.name).toBe(f);
    expect(int(suite, 'skipped'), suite.attrs.name).toBe(s);
    expect(int(suite, 'errors')).toBe(0);
    const sum = cases.reduce((t, c) => t + Number(c.attrs.time), 0);
    expect(Number(suite.attrs.time)).toBeCloseTo(sum, 2);
    tests += cases.length; failures += f; skipped += s;
  }
  expect(int(root, 'tests')).toBe(tests);
  expect(int(root, 'failures')).toBe(failures);
  expect(int(root, 'skipped')).toBe(skipped);
}

function testcases(root: XmlNode): XmlNode[] {
  return kids(root, 'testsuite').flatMap((s) => kids(s, 'testcase'));
}

// ---------------------------------------------------------------------------------------------------

describe('escaping helpers', () => {
  it('xmlEscape escapes the five specials and drops characters XML 1.0 forbids', () => {
    expect(xmlEscape(`a&<>"'b`)).toBe('a&amp;&lt;&gt;&quot;&apos;b');
    expect(xmlEscape('x\u0000\u0008\u000B\u001F\uFFFE\uFFFF\uDFFF\uD800y')).toBe('xy');
    expect(xmlEscape('\uD800\uDFFF')).toBe('\u{103FF}');
    expect(xmlEscape('tab\tnl\n é 😀 \uE000')).toBe('tab\tnl\n é 😀 \uE000');
    expect(xmlEscape('cr\r')).toBe('cr&#13;');
  });

  it('htmlEscape escapes markup and shows control characters', () => {
    expect(htmlEscape(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(htmlEscape('a\u0000b\u001bc')).toBe('a\\u0000b\\u001bc');
    expect(htmlEscape('lone \uD800 pair 😀')).toBe('lone \\ud800 pair 😀');
  });

  it('Markdown text cannot open markup, mentions or references; code spans survive backticks', () => {
    const md = mdText('<img src=x> *a* _b_ [l](u) | @user #3 ~~s~~ & `c`');
    for (const raw of ['<img', '*a*', '_b_', '[l]', ' | ', '@user', '#3', '~~', '& ', '`c`']) expect(md).not.toMatch(new RegExp(`(?<!\\\\)${raw.replace(/[|*[\]]/g, '\\$&')}`));
    expect(mdText('- not a list')).toBe('\\- not a list');
    expect(mdText('1. not a list')).toBe('1\\. not a list');
    expect(mdCode('a ``b`` c')).toBe('```a ``b`` c```');
    expect(mdCode('`x')).toBe('`` `x ``');
  });

  it('scrubKeyShapes removes key-shaped secrets', () => {
    expect(scrubKeyShapes(`Bearer ${LEAKED_KEY}.`)).toBe('Bearer cnv_live_[REDACTED].');
    expect(scrubKeyShapes('cnv_live_short')).toBe('cnv_live_short');
  });
});

describe('junit.xml', () => {
  it('is well-formed: one testsuite per group, one testcase per (requirement, check), counts right', () => {
    const results = sample();
    const root = parseXml(renderJunit(results));
    expect(root.tag).toBe('testsuites');
    expect(kids(root, 'testsuite').map((s) => s.attrs.name)).toEqual(['auth', 'streaming']);
    expectConsistentCounts(root);
    // 1 + 2 + 1 (auth) + 1 + 1 + 1 (streaming): the untested requirement gets a testcase of its own.
    expect(int(root, 'tests')).toBe(7);
    expect(Number(root.attrs.time)).toBe(1.234);
    expect(root.attrs.timestamp).toBe('2026-01-02T03:04:05');
    const classnames = testcases(root).map((c) => c.attrs.classname);
    expect(classnames).toContain('auth.auth-must-fails');
    expect(classnames).toContain('streaming.stream-untested-rule');
  });

  it('a failing MUST is a <failure type="MUST"> with expected, actual, replay and the wire log', () => {
    const root = parseXml(renderJunit(sample()));
    const failed = testcases(root).filter((c) => kids(c, 'failure').some((f) => f.attrs.type === 'MUST'));
    expect(failed.map((c) => c.attrs.classname)).toEqual(['auth.auth-must-fails']);
    const f = kids(failed[0]!, 'failure')[0]!;
    expect(f.attrs.type).toBe('MUST');
    expect(f.attrs.message).toContain('answered 200, not 401');
    expect(f.attrs.message).not.toContain('\n');
    expect(f.text).toContain('expected: 401');
    expect(f.text).toMatch(/actual: +\{\n {2}"status": 200,/);
    expect(f.text).toContain('replay: npm run conformance -- --target embedded --only auth-must-fails --seed 1');
    expect(f.text).toContain('#1 POST http://127.0.0.1:1/api/mcp/v1 → 200 text/event-stream');
    expect(f.text).toContain('[44.9 ms]');
    expect(f.text).toContain('#2 POST http://127.0.0.1:1/api/mcp/v1 → error: connect ECONNREFUSED');
    // Hostile text survives the round trip intact, less what XML cannot hold.
    expect(failed[0]!.attrs.name).toContain('</script><script>alert("x&y")</script>');
    expect(failed[0]!.attrs.name).toContain('é 😀');
  });

  it('not testable is skipped with the reason, untested is a failure; a SHOULD failure is a warning in system-out', () => {
    const root = parseXml(renderJunit(sample()));
    const byClass = (cn: string) => testcases(root).filter((c) => c.attrs.classname === cn);
    expect(kids(byClass('streaming.stream-not-testable')[0]!, 'skipped')[0]!.attrs.message).toBe('not testable: the profile has no streaming recipe');
    // A selected row nothing verifies fails the run, so CI shows it red.
    expect(kids(byClass('streaming.stream-untested-rule')[0]!, 'failure')[0]!.attrs).toMatchObject({ type: 'untested', message: 'no check verifies stream-untested-rule' });
    const warn = byClass('streaming.stream-should-warns')[0]!;
    expect(kids(warn, 'failure')).toEqual([]);
    expect(kids(warn, 'system-out')[0]!.text).toMatch(/^WARNING \(SHOULD not met/);
    // A known failure from the baseline does not turn CI red.
    const known = byClass('auth.auth-known-failure')[0]!;
    expect(kids(known, 'failure')).toEqual([]);
    expect(kids(known, 'skipped')[0]!.attrs.message).toMatch(/^known failure \(baseline\)/);
  });

  it('under --strict the SHOULD failure is a <failure type="SHOULD">', () => {
    const root = parseXml(renderJunit(sample(true)));
    const warn = testcases(root).find((c) => c.attrs.classname === 'streaming.stream-should-warns')!;
    expect(kids(warn, 'failure')[0]!.attrs.type).toBe('SHOULD');
    expectConsistentCounts(root);
    // The MUST, the untested row, the SHOULD, and the MUST whose only check was not testable (strict).
    expect(int(root, 'failures')).toBe(4);
    const unexercised = testcases(root).find((c) => c.attrs.classname === 'streaming.stream-not-testable' && c.attrs.name === 'exercised')!;
    expect(kids(unexercised, 'failure')[0]!.attrs.type).toBe('not-exercised');
  });

  it('a stale baseline entry is a failure; a clean run has none', () => {
    const stale = passing();
    stale.requirements[0]!.baseline = 'stale';
    stale.exitCode = 1;
    const root = parseXml(renderJunit(stale));
    const f = testcases(root).flatMap((c) => kids(c, 'failure'));
    expect(f.map((x) => x.attrs.type)).toEqual(['baseline']);
    expect(f[0]!.attrs.message).toContain('remove it from the baseline');
    expect(int(parseXml(renderJunit(passing())), 'failures')).toBe(0);
  });
});

describe('summary.md', () => {
  it('leads with the status word and totals, then failing, warnings, not testable, and the collapsed matrix', () => {
    const md = renderSummary(sample());
    expect(md.startsWith('## MCP conformance: FAIL\n')).toBe(true);
    // The untested row fails the run: it is listed under Failing as well as under Untested.
    expect(md).toMatch(/\| fail \| 2 \|\n\| warn \| 1 \|\n\| not testable \| 1 \|\n\| untested \| 1 \|\n\| \*\*total\*\* \| 6 \|/);
    const order = ['### Failing (2)', '`auth-must-fails` (MUST)', '### Warnings (1)', '### Known failures (baseline, 1)', '### Not testable (1)', '### Untested (1)', '<details>', '</details>'];
    const at = order.map((s) => md.indexOf(s));
    expect(at.every((i) => i >= 0), JSON.stringify(at)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(md).toContain('```sh\nnpm run conformance -- --target embedded --only auth-must-fails --seed 1\n```');
    expect(md).toContain('Source: service.md §auth');
    expect(md).toContain('expected:\n\n```json\n401\n```\n\nactual:\n\n```json\n{\n  "status": 200,');
    expect(md).toContain('- expected: `">= 20 ms apart"`\n- actual: `[0,1,2]`');
    expect(md).toContain('the profile has no streaming recipe');
    expect(md.match(/^\| `[a-z-]+` \|/gm)).toHaveLength(6);
    expect(md).not.toContain('Truncated');
  });

  it('escapes hostile text and has no emoji status', () => {
    // Outside code (where GitHub shows text literally) nothing from the run can open markup.
    const md = renderSummary(sample()).replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '').replace(/(`+)[^`]+?\1/g, '');
    expect(md).not.toMatch(/(?<!\\)<script/);
    expect(md).not.toMatch(/(?<!\\)@someone/);
    expect(md).toContain('\\<script\\>');
    // No emoji anywhere the writer speaks (the hostile run text above carries one of its own).
    expect(renderSummary(passing())).not.toMatch(/\p{Extended_Pictographic}/u);
    expect(md.split('\n')[0]).toBe('## MCP conformance: FAIL');
    expect(renderSummary(passing()).startsWith('## MCP conformance: PASS\n')).toBe(true);
  });

  it('stays under the comment limit, truncating with a note and closing what it opened', () => {
    const big = sample();
    const long = 'x'.repeat(5000);
    big.requirements = Array.from({ length: 400 }, (_, i) => req(`bulk-rule-${i}`, 'bulk', 'MUST', i % 2 ? 'fail' : 'pass', [check({
      requirementIds: [`bulk-rule-${i}`], status: i % 2 ? 'fail' : 'pass', message: long, expected: long, actual: long, replay: `npm run conformance -- --only bulk-rule-${i}`,
    })]));
    big.totals = { pass: 200, fail: 200, warn: 0, notTestable: 0, untested: 0, error: 0 };
    const md = renderSummary(big);
    expect(Buffer.byteLength(md, 'utf8')).toBeLessThanOrEqual(SUMMARY_LIMIT);
    expect(md).toMatch(/_Truncated to fit a pull-request comment: \d+ more item\(s\) left out\./);
    expect(md).toContain('### Failing (200)');
    expect((md.match(/<details>/g) ?? []).length).toBe((md.match(/<\/details>/g) ?? []).length);
    expect((md.match(/^```/gm) ?? []).length % 2).toBe(0);
    // Small runs keep everything.
    expect(Buffer.byteLength(renderSummary(sample()), 'utf8')).toBeLessThan(20_000);
  });
});

describe('report.html', () => {
  it('is self-contained: one inline script, inline style, a CSP, no external reference', () => {
    const html = renderHtml(sample());
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain('<script>\n(function () {');
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
    expect(html).not.toMatch(/<link|@import|url\(|\ssrc=/i);
    expect(html).not.toContain('<b>|pipe|</b>');
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;');
    expect(html).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/);
  });

  it('has a matrix row per requirement and the evidence of each failure and warning', () => {
    const html = renderHtml(sample());
    for (const r of sample().requirements) expect(html).toContain(`<tr class="req" id="m-${r.id}" data-id="${r.id}" data-status="${r.status}"`);
    for (const id of ['auth-must-fails', 'stream-should-warns', 'auth-known-failure']) expect(html).toContain(`<article class="failure" id="req-${id}"`);
    expect(html).not.toContain('id="req-auth-pass-ok"');
    expect(html).toContain('<td class="num">44.9 ms</td>');
    expect(html).toContain('connect ECONNREFUSED');
    expect(html).toContain('no check verifies this requirement');
  });
});

describe('report.html reads by failure, not by volume', () => {
  it('folds checks that failed alike (numbers aside) into the first, with a count; wire logs start collapsed', () => {
    const results = sample();
    const alike = (n: number) => check({ requirementIds: ['auth-must-fails'], name: `revision run ${n}`, status: 'fail', message: `answered 200 to request ${n}, not 401`, expected: 401, actual: 200, wire: [exchange()], replay: `replay ${n}` });
    results.requirements[1]!.checks.push(alike(1), alike(2), alike(3));
    const html = renderHtml(results);
    const article = html.slice(html.indexOf('<article class="failure" id="req-auth-must-fails"'), html.indexOf('</article>', html.indexOf('id="req-auth-must-fails"')));
    expect(article.match(/<div class="check">/g)).toHaveLength(2); // the first failure, and the first of the alike ones
    expect(article).toContain('<details class="alike"><summary>and 2 more checks that failed the same way</summary>');
    expect(article).toContain('answered 200 to request 3, not 401');
    expect(article).toContain('<code>replay 3</code>');
    expect(html).not.toContain('<details class="wire" open>');
    expect(html).toContain('<details class="wire"><summary>Wire log: 2 exchanges</summary>');
  });

  it('draws a stream\'s timeline: sent, headers, each progress, the result, the end, on one axis', () => {
    const html = renderHtml(sample());
    const figure = html.slice(html.indexOf('<figure class="timeline">'), html.indexOf('</figure>') + 9);
    expect(figure).toContain('<title>request sent: 0 ms</title>');
    expect(figure).toContain('<title>headers: 2.5 ms</title>');
    expect(figure.match(/<g class="t-progress">/g)).toHaveLength(2);
    expect(figure).toContain('<g class="t-result"><line x1="');
    expect(figure).toContain('<title>event 3 (result): 171.2 ms</title>');
    expect(figure).toContain('<title>end of stream: 171.25 ms</title>');
    expect(figure).toMatch(/<figcaption>.*sent.*headers.*progress.*result.*end.*<\/figcaption>/);
  });

  it('links in its navigation only the sections the page has', () => {
    const results = sample();
    // An in-process interop row is no client matrix: no SDK clients section, so no link to one.
    results.requirements.push(req('interop-ts-sdk-connects', 'interop', 'MUST', 'pass', [check({ requirementIds: ['interop-ts-sdk-connects'] })]));
    const html = renderHtml(results);
    const nav = /<nav class="sections"[^>]*>(.*?)<\/nav>/.exec(html)![1]!;
    const links = [...nav.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]!);
    expect(links).toEqual(['failures', 'matrix']);
    for (const id of links) expect(html).toContain(`id="${id}"`);
  });

  it('names the MUST rows no check could exercise under the verdict, linked to the matrix', () => {
    const html = renderHtml(sample());
    expect(html).toContain('<p class="unexercised">1 MUST requirement was not exercised (every check not testable; --strict would fail the run): <a href="#m-stream-not-testable"><code>stream-not-testable</code></a></p>');
  });
});

describe('the console lines under the verdict', () => {
  it('print any expected and actual on one line, a value JSON cannot write too, cut with a note', () => {
    const results = sample();
    const failing = results.requirements[1]!.checks[1]!;
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    failing.actual = cycle;
    failing.expected = 'x'.repeat(500);
    const lines = consoleFindings(results);
    expect(lines).toContain('      actual   [object Object]');
    expect(lines.find((l) => l.startsWith('      expected '))).toMatch(/^ {6}expected "x{159}… \[\d+ more characters\]$/);
  });
});

describe('no report holds a plaintext key', () => {
  it('a key-shaped string that slipped past redaction is scrubbed by every writer', () => {
    const results = sample();
    for (const out of [renderJunit(results), renderSummary(results), renderHtml(results)]) {
      expect(out).not.toContain(LEAKED_KEY);
      expect(out).not.toMatch(KEY_RE);
    }
  });
});

describe('the example GitHub Actions workflow', () => {
  const workflow = parseYaml(readFileSync('docs/github-actions-conformance.yml', 'utf8')) as { jobs: Record<string, { env: Record<string, string>; steps: { uses?: string; with?: Record<string, string>; if?: string }[] }> };
  const action = parseYaml(readFileSync('action.yml', 'utf8')) as { inputs: Record<string, unknown> };
  it('runs the harness through its action with inputs the action has, and publishes junit.xml and summary.md', () => {
    const job = Object.values(workflow.jobs)[0]!;
    const step = job.steps.find((s) => s.uses?.includes('/mcp-canvas-harness@'))!;
    expect(step, 'a step uses the action').toBeDefined();
    for (const input of Object.keys(step.with!)) expect(Object.keys(action.inputs), input).toContain(input);
    expect(step.with).toMatchObject({ 'base-url': '${{ env.BASE_URL }}', 'api-key': '${{ secrets.MCP_API_KEY }}', 'report-dir': '${{ env.REPORT_DIR }}' });
    expect(step.with!.baseline).toBeDefined();
    expect(job.env.REPORT_DIR).toBe('reports/pr');
    const after = job.steps.slice(job.steps.indexOf(step) + 1);
    // Published whatever the verdict: the action's step has failed the job when the run does not conform.
    expect(after.map((s) => s.uses?.split('@')[0])).toEqual(['dorny/test-reporter', 'marocchino/sticky-pull-request-comment']);
    for (const s of after) expect(s.if).toMatch(/^always\(\)/);
  });
});

// ---------------------------------------------------------------------------------------------------
// Real runs of the CLI

function reportTexts(dir: string): Record<string, string> {
  return Object.fromEntries(REPORT_FILES.map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}

describe.concurrent('reports of real runs', () => {
  it('the schema rejects what breaks the contract', () => {
    const good = { ...sample(), requirements: sample().requirements.map((r) => ({ ...r, checks: JSON.parse(JSON.stringify(r.checks)) as CheckRecord[] })) };
    expectValid(good);
    expect(validate({ ...good, schemaVersion: 2 })).toBe(false);
    expect(validate({ ...good, requirements: [{ ...good.requirements[0], status: 'passed' }] })).toBe(false);
    const { totals: _t, ...noTotals } = good;
    expect(validate(noTotals)).toBe(false);
  });

  it('a passing run (--only version): results.json validates, every report is written and listed', async () => {
    const run = await runCli(['--only', 'version', '--seed', '1']);
    expect(run.code, run.stderr).toBe(0);
    expectValid(run.results);
    for (const f of REPORT_FILES) {
      expect(existsSync(join(run.reportDir, f)), f).toBe(true);
      expect(run.stdout).toContain(join(run.reportDir, f));
    }
    const texts = reportTexts(run.reportDir);
    const root = parseXml(texts['junit.xml']!);
    expectConsistentCounts(root);
    expect(int(root, 'failures')).toBe(0);
    expect(int(root, 'tests')).toBe(run.results!.requirements.reduce((n, r) => n + Math.max(1, r.checks.length), 0));
    expect(texts['summary.md']).toMatch(/^## MCP conformance: PASS/);
    for (const [f, text] of Object.entries(texts)) expect(text, f).not.toMatch(KEY_RE);
  }, 120_000);

  it('a failing run (--mutant v2-answered): validates, and each report names the failure', async () => {
    const run = await runCli(['--only', 'version', '--mutant', 'v2-answered', '--seed', '1']);
    expect(run.code, run.stderr).toBe(1);
    expectValid(run.results);
    const texts = reportTexts(run.reportDir);
    const root = parseXml(texts['junit.xml']!);
    expectConsistentCounts(root);
    const failed = testcases(root).filter((c) => kids(c, 'failure').length > 0);
    expect(failed.map((c) => c.attrs.classname)).toEqual(['versioning.version-other-paths-404']);
    expect(kids(failed[0]!, 'failure')[0]!.text).toContain('POST http://127.0.0.1:');
    expect(texts['summary.md']).toMatch(/^## MCP conformance: FAIL/);
    expect(texts['summary.md']).toContain('--mutant v2-answered --only version-other-paths-404 --seed 1\n```');
    expect(texts['report.html']).toContain('id="req-version-other-paths-404"');
    for (const [f, text] of Object.entries(texts)) expect(text, f).not.toMatch(KEY_RE);
  }, 120_000);

  it('a full run against the embedded target (real bootstrapped keys) leaves no plaintext key in any report', async () => {
    const run = await runCli(['--seed', '5']);
    expect(run.results, run.stderr).toBeDefined();
    const texts = reportTexts(run.reportDir);
    // The keys were on the wire, and were redacted there.
    expect(texts['results.json']).toMatch(/Bearer \[REDACTED \d+ chars\]/);
    for (const [f, text] of Object.entries(texts)) expect(text, f).not.toMatch(KEY_RE);
    expect(REPORT_FILES).toEqual(['results.json', 'junit.xml', 'summary.md', 'report.html']);
  }, 180_000);
});
