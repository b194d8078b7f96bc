import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';
import { call, finalMessage, post } from '../helpers/mcp-http.js';

const FIELDS = ['humanEmail', 'agentName', 'workspaceName', 'canvasName'] as const;
const NAME_FIELDS = ['agentName', 'workspaceName', 'canvasName'] as const;

let server: ReferenceServer;
beforeAll(async () => {
  server = await startReference();
});
afterAll(async () => {
  await server?.close();
});

const bootstrapUrl = () => `${server.baseUrl}/api/agent/bootstrap`;

function validBody(): Record<string, unknown> {
  return { humanEmail: `h-${randomUUID()}@example.com`, agentName: 'test agent', workspaceName: 'Sales', canvasName: 'Q3 review' };
}

async function send(body: unknown, init: { headers?: Record<string, string>; raw?: string | Uint8Array<ArrayBuffer>; method?: string } = {}) {
  const res = await fetch(bootstrapUrl(), {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.raw ?? JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined };
}

/** A 4xx with `{error, message, details?}` as JSON; never a 5xx. */
function expectProblem(reply: Awaited<ReturnType<typeof send>>, status: number, field?: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json\b/);
  expect(reply.json).toEqual(expect.objectContaining({ error: expect.stringMatching(/^[a-z_]+$/), message: expect.any(String) }));
  expect(reply.json.message.length).toBeGreaterThan(0);
  if (reply.json.details !== undefined) {
    expect(Array.isArray(reply.json.details)).toBe(true);
    for (const d of reply.json.details) expect(d).toEqual(expect.objectContaining({ field: expect.any(String), problem: expect.any(String) }));
  }
  if (field) {
    // A clear error names the offending field.
    expect(reply.json.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(reply.json.message).toContain(field);
  }
}

async function workspaceGet(key: string) {
  const reply = await post(server.mcpUrl, call('workspace.get'), { key });
  expect(reply.status).toBe(200);
  const result = finalMessage(reply).result;
  expect(result.isError).toBeFalsy();
  return result.structuredContent as { workspace: { id: string; name: string; plan: string }; canvases: { id: string; name: string; claimed: boolean }[] };
}

describe('successful bootstrap', () => {
  it('answers 201 with a live key and an absolute claim URL under the base URL', async () => {
    const body = validBody();
    const reply = await send(body);
    expect(reply.status, reply.text).toBe(201);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(reply.json.apiKey).toMatch(/^cnv_live_[A-Za-z0-9]{40}$/);
    const claim = new URL(reply.json.claimUrl);
    expect(reply.json.claimUrl).toBe(claim.href);
    expect(claim.origin).toBe(new URL(server.baseUrl).origin);
    expect(claim.pathname).toMatch(/^\/claim\/[A-Za-z0-9_-]+$/);
    // The body carries a credential: RFC 9111 §5.2.2.5 no-store keeps it out of caches.
    expect(reply.headers.get('cache-control')).toMatch(/\bno-store\b/);
  });

  it('gives a key that works at once on the MCP endpoint and sees the names given', async () => {
    const body = validBody();
    const { apiKey } = await bootstrap(server, body);
    const list = await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { key: apiKey });
    expect(list.status).toBe(200);
    expect(list.json.result.tools.length).toBeGreaterThan(0);
    const seen = await workspaceGet(apiKey);
    expect(seen.workspace.name).toBe(body.workspaceName);
    expect(seen.canvases.map((c) => c.name)).toEqual([body.canvasName]);
  });

  it('needs no Authorization header and ignores one that is given', async () => {
    const other = await bootstrap(server, validBody());
    for (const authorization of ['Bearer not-a-key', `Bearer ${other.apiKey}`, 'Basic dXNlcjpwYXNz']) {
      const body = validBody();
      const reply = await send(body, { headers: { authorization } });
      expect(reply.status, reply.text).toBe(201);
      const seen = await workspaceGet(reply.json.apiKey);
      // A new workspace, not the one the presented key belongs to.
      expect(seen.workspace.id).not.toBe(other.workspace.id);
      expect(seen.workspace.name).toBe(body.workspaceName);
    }
  });

  it('ignores unknown extra fields, including ones that look privileged', async () => {
    const reply = await send({ ...validBody(), plan: 'unlimited', apiKey: `cnv_live_${'A'.repeat(40)}`, workspaceId: 'ws_x', extra: { nested: [1, 2] } });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.json.apiKey).not.toBe(`cnv_live_${'A'.repeat(40)}`);
    const seen = await workspaceGet(reply.json.apiKey);
    expect(seen.workspace.plan).toBe(server.config.bootstrapPlan);
    expect(seen.workspace.id).not.toBe('ws_x');
  });

  test.each([
    ['emoji', '🚀 Launch 🎉👩🏽‍💻'],
    ['CJK', '数据仪表板・売上'],
    ['Hebrew (RTL)', 'לוח מחוונים'],
    ['Arabic (RTL)', 'لوحة القيادة'],
    ['combining marks', 'Cafe\u0301 re\u0301sume\u0301'],
    ['200 astral code points', '😀'.repeat(200)],
    ['200 characters', 'x'.repeat(200)],
  ])('accepts %s names and keeps them exactly', async (_label, name) => {
    const body = { ...validBody(), agentName: name, workspaceName: name, canvasName: name };
    const reply = await send(body);
    expect(reply.status, reply.text).toBe(201);
    const seen = await workspaceGet(reply.json.apiKey);
    expect(seen.workspace.name).toBe(name);
    expect(seen.canvases[0]!.name).toBe(name);
  });

  it('gives two bootstraps two workspaces whose keys do not see each other\'s blocks', async () => {
    const a = await bootstrap(server, validBody());
    const b = await bootstrap(server, validBody());
    expect(a.apiKey).not.toBe(b.apiKey);
    expect(a.workspace.id).not.toBe(b.workspace.id);
    expect(a.claimUrl).not.toBe(b.claimUrl);
    const created = finalMessage(await post(server.mcpUrl, call('blocks.create', { title: 'only in A', kind: 'text' }), { key: a.apiKey }));
    expect(created.result.isError).toBeFalsy();
    const listB = finalMessage(await post(server.mcpUrl, call('blocks.list', {}), { key: b.apiKey })).result.structuredContent;
    expect(listB.blocks).toEqual([]);
    const listA = finalMessage(await post(server.mcpUrl, call('blocks.list', {}), { key: a.apiKey })).result.structuredContent;
    expect(listA.blocks.map((x: { title: string }) => x.title)).toEqual(['only in A']);
  });
});

describe('configured key prefix and public base URL', () => {
  let custom: ReferenceServer;
  beforeAll(async () => {
    custom = await startReference({ keyPrefix: 'acme', publicBaseUrl: 'https://canvas.example.test/' });
  });
  afterAll(async () => {
    await custom?.close();
  });

  it('mints keys with the configured prefix that work on the MCP endpoint', async () => {
    const { apiKey } = await bootstrap(custom, validBody());
    expect(apiKey).toMatch(/^acme_live_[A-Za-z0-9]{40}$/);
    const list = await post(custom.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { key: apiKey });
    expect(list.status).toBe(200);
  });

  it('builds the claim URL on the public base URL', async () => {
    const { claimUrl } = await bootstrap(custom, validBody());
    expect(claimUrl).toMatch(/^https:\/\/canvas\.example\.test\/claim\/[A-Za-z0-9_-]+$/);
  });
});

describe('rejected bodies', () => {
  test.each(FIELDS)('missing %s gives 400 naming it', async (field) => {
    const body = validBody();
    delete body[field];
    expectProblem(await send(body), 400, field);
  });

  const wrongTypes: [string, unknown][] = [['a number', 42], ['null', null], ['an array', ['a@example.com']], ['an object', { value: 'x' }], ['a boolean', true]];
  test.each(FIELDS.flatMap((field) => wrongTypes.map(([label, value]) => [field, label, value] as const)))('%s as %s gives 400', async (field, _label, value) => {
    expectProblem(await send({ ...validBody(), [field]: value }), 400, field);
  });

  test.each([
    'plainaddress', 'no-at.example.com', 'a@', '@example.com', 'a@@example.com', 'a b@example.com', 'a@exa mple.com',
    'Someone <a@example.com>', 'a@example.com, b@example.com', 'a@example.com\r\nBcc: evil@example.com', ' a@example.com',
    'a@example.com ', '.a@example.com', 'a..b@example.com', 'a@-example.com', 'a@example..com', '', 'a@localhost',
    `${'a'.repeat(250)}@example.com`, `${'a'.repeat(65)}@example.com`,
  ])('humanEmail %j gives 400', async (humanEmail) => {
    expectProblem(await send({ ...validBody(), humanEmail }), 400, 'humanEmail');
  });

  const badNames: [string, string][] = [
    ['empty', ''], ['spaces only', '   '], ['a tab only', '\t'], ['ideographic space only', '\u3000'], ['no-break space only', '\u00a0'],
    ['a newline', 'a\nb'], ['CR LF', 'a\r\nBcc: x@example.com'], ['NUL', 'a\u0000b'], ['DEL', 'a\u007fb'], ['an escape sequence', 'a\u001b[31mred'],
    ['a C1 control (NEL)', 'a\u0085b'], ['a C1 control (CSI)', 'a\u009bb'], ['a line separator', 'a\u2028b'], ['a lone surrogate', 'a\ud800b'],
    ['201 characters', 'x'.repeat(201)], ['201 astral code points', '😀'.repeat(201)], ['10 000 characters', 'y'.repeat(10_000)],
  ];
  test.each(NAME_FIELDS.flatMap((field) => badNames.map(([label, value]) => [field, label, value] as const)))('%s with %s gives 400', async (field, _label, value) => {
    expectProblem(await send({ ...validBody(), [field]: value }), 400, field);
  });

  it('reports every invalid field at once', async () => {
    const reply = await send({ humanEmail: 'nope', agentName: '', workspaceName: 7 });
    expectProblem(reply, 400);
    const fields = new Set(reply.json.details.map((d: { field: string }) => d.field));
    expect([...fields].sort()).toEqual([...FIELDS].sort());
  });

  test.each([['an array', '[]'], ['a string', '"hello"'], ['null', 'null'], ['a number', '42'], ['a boolean', 'true']])('a body that is %s gives 400', async (_label, raw) => {
    expectProblem(await send(undefined, { raw }), 400);
  });

  test.each([
    ['truncated JSON', '{"humanEmail": "a@example.com"'], ['plain text', 'hello'], ['an empty body', ''], ['a trailing comma', '{"a": 1,}'],
    ['single quotes', "{'humanEmail': 'a@example.com'}"],
  ])('%s gives 400 invalid JSON', async (_label, raw) => {
    const reply = await send(undefined, { raw });
    expectProblem(reply, 400);
  });

  it('a body that is not UTF-8 gives 400', async () => {
    const latin1 = Buffer.from(JSON.stringify({ ...validBody(), agentName: 'caf\u00e9' }), 'latin1');
    expectProblem(await send(undefined, { raw: new Uint8Array(latin1) }), 400);
  });

  test.each([
    ['text/plain', 'text/plain'], ['form data', 'application/x-www-form-urlencoded'], ['multipart', 'multipart/form-data; boundary=x'],
    ['a JSON-like suffix type', 'application/merge-patch+json'], ['text/json', 'text/json'],
  ])('content-type %s gives 415', async (_label, type) => {
    expectProblem(await send(validBody(), { headers: { 'content-type': type } }), 415);
  });

  it('a body without Content-Type gives 415', async () => {
    // fetch adds text/plain to a string body; a Blob without a type sends no Content-Type at all.
    const res = await fetch(bootstrapUrl(), { method: 'POST', body: new Blob([JSON.stringify(validBody())]) });
    const text = await res.text();
    expectProblem({ status: res.status, headers: res.headers, text, json: JSON.parse(text) }, 415);
  });

  it('accepts application/json with parameters and any case', async () => {
    for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
      const reply = await send(validBody(), { headers: { 'content-type': type } });
      expect(reply.status, `${type}: ${reply.text}`).toBe(201);
    }
  });

  it('an oversized body gives 413', async () => {
    const raw = JSON.stringify({ ...validBody(), padding: 'p'.repeat(server.config.maxBootstrapBodyBytes) });
    expectProblem(await send(undefined, { raw }), 413);
  });

  it('an oversized chunked body (no Content-Length) gives 413', async () => {
    const chunk = new TextEncoder().encode(`{"padding": "${'p'.repeat(server.config.maxBootstrapBodyBytes * 2)}"}`);
    const body = new ReadableStream<Uint8Array>({ start(c) { c.enqueue(chunk); c.close(); } });
    const res = await fetch(bootstrapUrl(), { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
    const text = await res.text();
    expectProblem({ status: res.status, headers: res.headers, text, json: JSON.parse(text) }, 413);
  });

  test.each(['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])('%s gives 405 with Allow: POST', async (method) => {
    const res = await fetch(bootstrapUrl(), { method });
    const text = await res.text();
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expectProblem({ status: res.status, headers: res.headers, text, json: JSON.parse(text) }, 405);
  });

  it('HEAD gives 405 with Allow: POST', async () => {
    const res = await fetch(bootstrapUrl(), { method: 'HEAD' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('creates nothing for a rejected body', async () => {
    const before = server.outbox.length;
    await send({ ...validBody(), canvasName: '' });
    await send({ ...validBody(), humanEmail: 'bad' });
    expect(server.outbox.length).toBe(before);
  });

  it('never answers 5xx to arbitrary JSON bodies', async () => {
    const fieldValue = fc.oneof(fc.string(), fc.emailAddress(), fc.jsonValue(), fc.string({ unit: 'binary', maxLength: 300 }));
    const body = fc.oneof(
      fc.jsonValue(),
      fc.record({ humanEmail: fieldValue, agentName: fieldValue, workspaceName: fieldValue, canvasName: fieldValue }, { requiredKeys: [] }),
      fc.dictionary(fc.string(), fc.jsonValue()),
    );
    await fc.assert(fc.asyncProperty(body, async (value) => {
      const reply = await send(value);
      expect(reply.status === 201 || (reply.status >= 400 && reply.status < 500), `${reply.status} for ${JSON.stringify(value)}`).toBe(true);
      if (reply.status !== 201) expectProblem(reply, reply.status);
    }), { numRuns: 150 });
  });
});
