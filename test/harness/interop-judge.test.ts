import { describe, expect, it } from 'vitest';
import { parseClients } from '../../src/interop/clients.js';
import { judge, SPEC_TOOLS, type Judge, type Step } from '../../src/interop/judge.js';
import type { Cell, Matrix } from '../../src/interop/matrix.js';
import type { ClientLine } from '../../src/interop/run-client.js';
import { blameTimeout } from '../../src/interop/timeout-blame.js';
import type { Exchange } from '../../src/wire/exchange.js';
import { clientMatrix, type RequirementResult } from '../../src/engine/results.js';
import type { CheckRecord } from '../../src/engine/verdict.js';

/** A judge that ends like a check does: the first verdict wins. */
function outcome(step: Step, matrix: Matrix, cell: Cell): { status: 'pass' | 'fail' | 'not-testable' | 'not-applicable'; message?: string; notes: string[] } {
  const notes: string[] = [];
  class End extends Error {
    constructor(readonly status: 'fail' | 'not-testable' | 'not-applicable', message: string) {
      super(message);
    }
  }
  const j: Judge = {
    verify: (ok, message) => {
      if (!ok) throw new End('fail', message);
    },
    notTestable: (reason) => {
      throw new End('not-testable', reason);
    },
    notApplicable: (reason) => {
      throw new End('not-applicable', reason);
    },
    observe: (note) => notes.push(note),
  };
  try {
    judge(j, step, matrix, cell, 'service');
    return { status: 'pass', notes };
  } catch (err) {
    if (err instanceof End) return { status: err.status, message: err.message, notes };
    throw err;
  }
}

const CALLS = [
  { tool: 'schedule.preview', arguments: {}, streaming: true },
  { tool: 'blocks.list', arguments: {}, streaming: false },
];
const matrix = (over: Partial<Matrix> = {}): Matrix => ({ calls: CALLS, gaps: [], badKey: 'revoked', revisions: ['2025-11-25', '2026-07-28'], cells: [], notes: [], setupWire: [], wallMs: 1, ...over });
const streamed = (over: Record<string, unknown> = {}): ClientLine => ({
  step: 'call', at: 50, tool: 'schedule.preview', ok: true, isError: false, resultAt: 40,
  progress: [{ progress: 1, at: 10, afterResult: false }, { progress: 2, at: 20, afterResult: false }], ...over,
});
const GOOD: ClientLine[] = [
  { step: 'start', at: 0 },
  { step: 'connect', at: 10, ok: true, protocolVersion: '2025-11-25', pinned: false },
  { step: 'list', at: 20, ok: true, tools: [...SPEC_TOOLS, 'blocks.publish'] },
  streamed(),
  { step: 'call', at: 60, tool: 'blocks.list', ok: true, isError: false, resultAt: 5, progress: [] },
  { step: 'bad-key', at: 70, ok: true, error: 'HTTP 401' },
  { step: 'close', at: 80, ok: true },
];
const cell = (lines: ClientLine[], over: Partial<Cell> = {}): Cell => ({
  client: 'python', mode: 'http', install: 'bash scripts/setup-interop.sh', speaks: ['2025-11-25', '2026-07-28'], wire: [], requests: 0,
  run: { lines, unparsed: [], stderr: '', exitCode: 0, durationMs: 100 }, ...over,
});
const replace = (step: string, line: ClientLine | undefined) => GOOD.flatMap((l) => (l.step === step && (step !== 'call' || l.tool === 'schedule.preview') ? (line ? [line] : []) : [l]));

describe('interop matrix verdicts', () => {
  it('passes every step of a client that did everything', () => {
    for (const step of ['connect', 'streaming', 'call', 'bad-key', 'stdio'] as const) expect(outcome(step, matrix(), cell(GOOD)).status).toBe('pass');
  });

  it('fails connect with the SDK\'s own error text', () => {
    const r = outcome('connect', matrix(), cell(replace('connect', { step: 'connect', at: 1, ok: false, error: 'Unexpected content type: text/html' })));
    expect(r).toMatchObject({ status: 'fail', message: expect.stringContaining('Unexpected content type: text/html') });
  });

  it('a client that cannot speak any revision of the target is not applicable, one that could is failed', () => {
    const refused = replace('connect', { step: 'connect', at: 1, ok: false, error: 'Unsupported protocol version: 2025-11-25' });
    expect(outcome('connect', matrix({ revisions: ['2026-07-28'] }), cell(refused, { speaks: ['2025-11-25'] })).status).toBe('not-applicable');
    expect(outcome('streaming', matrix({ revisions: ['2026-07-28'] }), cell(refused, { speaks: ['2025-11-25'] })).status).toBe('not-applicable');
    expect(outcome('connect', matrix({ revisions: ['2025-11-25'] }), cell(refused, { speaks: ['2025-11-25'] })).status).toBe('fail');
    // Nothing detected: no exemption.
    expect(outcome('connect', matrix({ revisions: [] }), cell(refused, { speaks: ['2025-11-25'] })).status).toBe('fail');
  });

  it('fails connect when a tool the description names is missing', () => {
    const r = outcome('connect', matrix(), cell(replace('list', { step: 'list', at: 1, ok: true, tools: ['blocks.create'] })));
    expect(r).toMatchObject({ status: 'fail', message: expect.stringContaining('six tools') });
  });

  it('fails streaming on no progress, out-of-order progress, progress after the result, and a missed result', () => {
    const cases: [ClientLine | undefined, RegExp][] = [
      [streamed({ progress: [] }), /saw the progress/],
      [streamed({ progress: [{ progress: 2, at: 10 }, { progress: 1, at: 20 }] }), /increasing order/],
      [streamed({ progress: [{ progress: 1, at: 10 }, { progress: 2, at: 45, afterResult: true }] }), /after its result/],
      [streamed({ ok: false, error: 'timed out' }), /call failed: timed out/],
      [streamed({ isError: true }), /tool error/],
      [undefined, /never finished calling schedule.preview/],
    ];
    for (const [line, message] of cases) expect(outcome('streaming', matrix(), cell(replace('call', line)))).toMatchObject({ status: 'fail', message: expect.stringMatching(message) });
  });

  it('a handler called after the result passes when the recorded stream sent the progress first', () => {
    const late = replace('call', streamed({ progress: [{ progress: 1, at: 10 }, { progress: 2, at: 41 }] }));
    const wire = (events: string[]) => [{
      request: { method: 'POST', url: 'u', headers: {}, body: '{"method":"tools/call","params":{"name":"schedule.preview"}}' }, startedAt: '',
      response: { status: 200, headers: {}, headersAt: 1, endAt: 2, events: events.map((data, i) => ({ at: i, data })) },
    }];
    const progress = '{"method":"notifications/progress","params":{"progress":2}}';
    const result = '{"jsonrpc":"2.0","id":1,"result":{}}';
    expect(outcome('streaming', matrix(), cell(late, { wire: wire([progress, result]) })).status).toBe('pass');
    expect(outcome('streaming', matrix(), cell(late, { wire: wire([result, progress]) }))).toMatchObject({ status: 'fail', message: expect.stringContaining('the stream sent it after the result') });
  });

  it('names the step a hung client was killed in', () => {
    const lines = GOOD.slice(0, 3);
    const r = outcome('streaming', matrix(), cell(lines, { run: { lines, unparsed: [], stderr: '', exitCode: null, hung: 'printed nothing for 15 s after its "list" line: killed', durationMs: 15_000 } }));
    expect(r).toMatchObject({ status: 'fail', message: expect.stringContaining('hung') });
  });

  it('fails bad-key when the client was let in, and passes when it surfaced the refusal', () => {
    expect(outcome('bad-key', matrix(), cell(replace('bad-key', { step: 'bad-key', at: 1, ok: false, accepted: true })))).toMatchObject({ status: 'fail' });
    expect(outcome('bad-key', matrix(), cell(GOOD)).notes.join()).toContain('HTTP 401');
  });

  it('fails stdio on a line the client could not parse', () => {
    const lines = [...GOOD, { step: 'transport-error', at: 30, error: 'SyntaxError: Unexpected token' }];
    expect(outcome('stdio', matrix(), cell(lines, { mode: 'stdio' }))).toMatchObject({ status: 'fail', message: expect.stringContaining('could not parse') });
  });

  it('a missing runtime is not testable with its install command, never a pass', () => {
    const r = outcome('connect', matrix(), cell([], { run: undefined, notRun: { reason: 'no venv; install it with `bash scripts/setup-interop.sh`' } }));
    expect(r).toMatchObject({ status: 'not-testable', message: expect.stringContaining('bash scripts/setup-interop.sh') });
    const fatal = outcome('connect', matrix(), cell([{ step: 'fatal', at: 1, error: "No module named 'mcp'" }]));
    expect(fatal).toMatchObject({ status: 'not-testable', message: expect.stringContaining('setup-interop') });
  });

  it('a program that printed nothing at all is the harness\'s error, not a verdict', () => {
    expect(() => outcome('connect', matrix(), cell([]))).toThrow(/did not start/);
  });

  it('no streaming recipe is not testable; no bad key is not testable', () => {
    expect(outcome('streaming', matrix({ calls: [CALLS[1]!], gaps: ['blocks.build: no id'] }), cell(GOOD)).status).toBe('not-testable');
    expect(outcome('bad-key', matrix({ badKey: 'none' }), cell(GOOD)).status).toBe('not-testable');
  });
});

describe('a client that gave up waiting: the service\'s time, or the harness\'s machine\'s', () => {
  // "What the harness's own machine causes is never the service's fault ... What stays ambiguous is not
  // testable with the reason, never a MUST failure" (issue 33).
  const T = Date.parse('2026-01-01T00:00:00.000Z');
  const iso = (ms: number) => new Date(T + ms).toISOString();
  const post = (at: number, body: unknown, response?: Exchange['response']): Exchange => ({
    request: { method: 'POST', url: 'u', headers: {}, body: JSON.stringify(body) }, startedAt: iso(at), ...(response ? { response } : { error: 'AbortError: aborted' }),
  });
  const json = (body: unknown, endAt: number): Exchange['response'] => ({ status: 200, headers: {}, body: JSON.stringify(body), headersAt: endAt, endAt, closed: true });
  const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: {} };
  const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
  const gaveUp = (error: string, at = 11_200): ClientLine[] => [{ step: 'start', at: 200 }, { step: 'connect', at, ok: false, error }];
  const timed = (lines: ClientLine[], wire: Exchange[], over: Partial<Cell> = {}) =>
    cell(lines, { mode: 'stdio', wire, run: { lines, unparsed: [], stderr: '', exitCode: 0, durationMs: 12_000, startedAt: T }, ...over });
  const M = matrix({ timeoutMs: 10_000 });

  it('a connect that timed out while every request got its complete reply within ms is not testable, with the account', () => {
    // The stdio proxy took 10 s to start on a starved machine; the service answered it at once.
    const wire = [post(10_500, initialize, json({ jsonrpc: '2.0', id: 0, result: {} }, 25)), { ...post(10_560, initialized), response: { status: 202, headers: {}, headersAt: 3, endAt: 3, closed: true } }];
    for (const error of ['connect did not settle within 11000 ms', 'calling "initialize": context deadline exceeded', 'connect timed out after 11000 ms']) {
      for (const step of ['stdio', 'connect'] as const) {
        const r = outcome(step, M, timed(gaveUp(error), wire));
        expect(r, error).toMatchObject({ status: 'not-testable', message: expect.stringMatching(/of its 2 request\(s\) the service answered 2 completely within 25 ms.*before its first request reached the service/) });
      }
    }
    // No request reached the service at all before the client gave up: its transport was still starting.
    expect(outcome('stdio', M, timed(gaveUp('connect did not settle within 11000 ms'), []))).toMatchObject({ status: 'not-testable', message: expect.stringContaining('no request of it reached the service') });
  });

  it('a request the service left unanswered, or answered slower than half the deadline, stays the service\'s failure', () => {
    const unanswered = [post(300, initialize)];
    expect(outcome('stdio', M, timed(gaveUp('connect did not settle within 11000 ms'), unanswered))).toMatchObject({ status: 'fail', message: expect.stringContaining('could not connect') });
    const slow = [post(300, initialize, json({ jsonrpc: '2.0', id: 0, result: {} }, 6_000))];
    expect(outcome('stdio', M, timed(gaveUp('connect did not settle within 11000 ms'), slow)).status).toBe('fail');
    // A reply that is not the request's (another id) answers nothing: the client waited on the service.
    const foreign = [post(300, initialize, json({ jsonrpc: '2.0', id: 99, result: {} }, 25))];
    expect(outcome('stdio', M, timed(gaveUp('connect did not settle within 11000 ms'), foreign)).status).toBe('fail');
    // A hung client (killed silent) whose request is unanswered: the service's too.
    const lines = GOOD.slice(0, 3);
    const hung = { lines, unparsed: [], stderr: '', exitCode: null, hung: 'printed nothing for 15 s after its "list" line: killed', durationMs: 15_100, startedAt: T };
    const call = post(30, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'schedule.preview' } });
    expect(outcome('streaming', M, cell(lines, { run: hung, wire: [call] }))).toMatchObject({ status: 'fail', message: expect.stringContaining('hung') });
  });

  it('a client that held the service\'s complete reply for most of its deadline and gave up is failed: the reply is what it could not use', () => {
    // The stream ended with its result at 0.8 s (a bare-CR stream, say), and the SDK waited out its 10 s anyway.
    const call = post(1_000, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'schedule.preview' } }, {
      status: 200, headers: {}, headersAt: 5, endAt: 800, closed: true, events: [{ at: 400, data: '{"method":"notifications/progress","params":{"progress":1}}' }, { at: 800, data: '{"jsonrpc":"2.0","id":3,"result":{}}' }],
    });
    const lines = replace('call', streamed({ at: 11_000, ok: false, error: 'MCP error -32001: Request timed out', progress: [] })).map((l) => (l.step === 'list' ? { ...l, at: 990 } : l));
    const r = outcome('streaming', M, cell(lines, { wire: [call], run: { lines, unparsed: [], stderr: '', exitCode: 0, durationMs: 12_000, startedAt: T } }));
    expect(r).toMatchObject({ status: 'fail', message: expect.stringContaining('call failed') });
  });

  it('a client killed before its first line on a starved machine is not testable; one that exited without a word is still the harness\'s error', () => {
    const run = { lines: [], unparsed: [], stderr: '', exitCode: null, hung: 'printed nothing for 25 s after it started: killed', durationMs: 25_000, startedAt: T };
    expect(outcome('connect', M, cell([], { run }))).toMatchObject({ status: 'not-testable', message: expect.stringContaining('did not start on this machine in time') });
    expect(() => outcome('connect', M, cell([]))).toThrow(/did not start/);
  });
});

describe('whose time ran out (blameTimeout)', () => {
  it('a request outstanding while the harness\'s own event loop was stalled is the harness\'s, with the stall named', () => {
    const from = Date.parse('2026-01-01T00:00:00.000Z');
    const wire: Exchange[] = [{ request: { method: 'POST', url: 'u', headers: {}, body: '{"jsonrpc":"2.0","id":0,"method":"initialize"}' }, startedAt: new Date(from + 10).toISOString(), error: 'AbortError: aborted' }];
    const blame = blameTimeout({ what: 'connect', connect: true, from, to: from + 6_100, deadlineMs: 3_000, wire, stalls: [{ from: from + 40, to: from + 6_050 }] });
    expect(blame).toMatchObject({ side: 'harness', reason: expect.stringContaining('event loop stalled for 6.0 s') });
    // The same wait without the stall: the service had the request for 6 s of a 3 s deadline.
    expect(blameTimeout({ what: 'connect', connect: true, from, to: from + 6_100, deadlineMs: 3_000, wire, stalls: [] })).toEqual({ side: 'service' });
  });
});

describe('--clients', () => {
  it('takes known ids and rejects unknown or empty lists', () => {
    expect(parseClients('go, python,go')).toEqual(['go', 'python']);
    expect(parseClients('ts-v3')).toMatch(/unknown client "ts-v3"/);
    expect(parseClients(' , ')).toMatch(/selects no client/);
  });
});

describe('the client x step matrix of the reports', () => {
  it('has one line per client with the revision it negotiated over HTTP', () => {
    const check = (client: string, mode: 'http' | 'stdio', status: CheckRecord['status'], revision?: string): CheckRecord => ({
      name: 'x', suite: 's', requirementIds: ['x'], status, observations: [], wire: [], durationMs: 0, interop: { client, sdk: `${client} sdk`, mode, ...(revision && { revision }) },
    });
    const req = (id: string, status: RequirementResult['status'], checks: CheckRecord[]): RequirementResult => ({ id, group: 'interop-matrix', level: 'MUST', source: '', text: '', status, checks });
    const m = clientMatrix([
      req('interop-go-connect', 'pass', [check('go', 'http', 'pass', '2026-07-28')]),
      req('interop-go-stdio', 'fail', [check('go', 'stdio', 'fail', '2025-11-25')]),
      req('interop-python-connect', 'not-testable', [check('python', 'http', 'not-testable')]),
    ]);
    expect(m.steps).toEqual(['connect', 'stdio']);
    expect(m.rows).toEqual([
      { client: 'go', sdk: 'go sdk', revision: '2026-07-28', cells: { connect: 'pass', stdio: 'fail' } },
      { client: 'python', sdk: 'python sdk', cells: { connect: 'not-testable', stdio: 'not-run' } },
    ]);
  });
});
