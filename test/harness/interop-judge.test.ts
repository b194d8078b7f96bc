import { describe, expect, it } from 'vitest';
import { parseClients } from '../../src/interop/clients.js';
import { judge, SPEC_TOOLS, type Judge, type Step } from '../../src/interop/judge.js';
import type { Cell, Matrix } from '../../src/interop/matrix.js';
import type { ClientLine } from '../../src/interop/run-client.js';
import { clientMatrix, type RequirementResult } from '../../src/results.js';
import type { CheckRecord } from '../../src/verdict.js';

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
