import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import { bootstrap, startReference, type Bootstrapped, type ReferenceServer } from '../helpers/reference.js';
import { call, finalMessage, post } from '../helpers/mcp-http.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startReference();
});
afterAll(async () => {
  await server?.close();
});

function fresh(names: Record<string, string> = {}): Promise<Bootstrapped> {
  return bootstrap(server, { humanEmail: `claim-${randomUUID()}@example.com`, workspaceName: 'Claim WS', canvasName: 'Claim canvas', ...names });
}

async function request(url: string, method: string, accept?: string) {
  const res = await fetch(url, { method, headers: accept === undefined ? {} : { accept } });
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('application/json') && text ? JSON.parse(text) : undefined;
  return { status: res.status, headers: res.headers, text, json };
}

const asJson = 'application/json';

async function workspaceGet(key: string) {
  const reply = await post(server.mcpUrl, call('workspace.get'), { key });
  expect(reply.status).toBe(200);
  return finalMessage(reply).result.structuredContent as { workspace: { name: string }; canvases: { name: string; claimed: boolean }[] };
}

describe('viewing a claim link', () => {
  it('shows the canvas as an HTML page by default', async () => {
    const b = await fresh({ canvasName: 'Revenue board', workspaceName: 'Finance' });
    for (const accept of [undefined, '*/*', BROWSER_ACCEPT, 'text/html']) {
      const page = await request(b.claimUrl, 'GET', accept);
      expect(page.status, `Accept ${accept}`).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.text).toMatch(/^<!doctype html>/i);
      expect(page.text).toContain('Revenue board');
      expect(page.text).toContain('Finance');
      // The page offers the claim as a POST form, never as a link a prefetcher could follow.
      expect(page.text).toMatch(/<form method="post"/);
    }
  });

  it('shows the canvas as JSON to a client that asks for it', async () => {
    const b = await fresh({ canvasName: 'JSON canvas', workspaceName: 'JSON WS' });
    const reply = await request(b.claimUrl, 'GET', asJson);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(reply.json).toEqual(expect.objectContaining({
      canvas: expect.objectContaining({ id: b.canvas.id, name: 'JSON canvas' }),
      workspace: expect.objectContaining({ id: b.workspace.id, name: 'JSON WS' }),
      claimed: false,
    }));
  });

  it('marks the answer as varying with Accept and keeps it out of caches and Referer headers', async () => {
    const b = await fresh();
    for (const accept of [undefined, asJson]) {
      const reply = await request(b.claimUrl, 'GET', accept);
      // RFC 9110 §12.5.5: a representation chosen by Accept is listed in Vary.
      expect(reply.headers.get('vary') ?? '').toMatch(/\baccept\b/i);
      // The URL is a bearer capability: not cached, not leaked to other sites.
      expect(reply.headers.get('cache-control') ?? '').toMatch(/\bno-store\b/);
      expect(reply.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('answers HEAD like GET, without a body', async () => {
    const b = await fresh();
    const get = await request(b.claimUrl, 'GET');
    const head = await request(b.claimUrl, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
  });

  it('does not claim on GET or HEAD (mail scanners follow links)', async () => {
    const b = await fresh();
    for (let i = 0; i < 3; i++) {
      await request(b.claimUrl, 'GET');
      await request(b.claimUrl, 'HEAD');
      await request(b.claimUrl, 'GET', asJson);
    }
    expect((await request(b.claimUrl, 'GET', asJson)).json.claimed).toBe(false);
    expect((await workspaceGet(b.apiKey)).canvases[0]!.claimed).toBe(false);
    expect((await request(b.claimUrl, 'POST', asJson)).status).toBe(200);
  });
});

describe('claiming', () => {
  it('claims once with POST; a second POST gives 409', async () => {
    const b = await fresh({ canvasName: 'Once' });
    const first = await request(b.claimUrl, 'POST', asJson);
    expect(first.status).toBe(200);
    expect(first.json).toEqual(expect.objectContaining({ claimed: true, canvas: expect.objectContaining({ name: 'Once' }) }));
    const second = await request(b.claimUrl, 'POST', asJson);
    expect(second.status).toBe(409);
    expect(second.json).toEqual(expect.objectContaining({ error: expect.any(String), message: expect.any(String) }));
    const third = await request(b.claimUrl, 'POST');
    expect(third.status).toBe(409);
    expect(third.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('claims from a browser form post', async () => {
    const b = await fresh({ canvasName: 'Browser canvas' });
    const res = await fetch(b.claimUrl, { method: 'POST', headers: { accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toContain('Browser canvas');
  });

  it('shows the canvas as claimed afterwards, on the link and through the key', async () => {
    const b = await fresh();
    expect((await request(b.claimUrl, 'POST')).status).toBe(200);
    const view = await request(b.claimUrl, 'GET', asJson);
    expect(view.status).toBe(200);
    expect(view.json.claimed).toBe(true);
    expect((await request(b.claimUrl, 'GET')).status).toBe(200);
    expect((await workspaceGet(b.apiKey)).canvases[0]!.claimed).toBe(true);
  });

  it('lets exactly one of many simultaneous claims win', async () => {
    const b = await fresh();
    const replies = await Promise.all(Array.from({ length: 12 }, () => request(b.claimUrl, 'POST', asJson)));
    expect(replies.map((r) => r.status).sort()).toEqual([200, ...Array(11).fill(409)]);
  });

  it('claims only the canvas of its own link', async () => {
    const a = await fresh();
    const b = await fresh();
    expect((await request(a.claimUrl, 'POST', asJson)).status).toBe(200);
    expect((await request(b.claimUrl, 'GET', asJson)).json.claimed).toBe(false);
    expect((await request(b.claimUrl, 'POST', asJson)).status).toBe(200);
  });

  it('keeps the temporary key working after the claim', async () => {
    // The description says nothing about the key after the claim, so it must not change.
    const b = await fresh();
    expect((await request(b.claimUrl, 'POST', asJson)).status).toBe(200);
    const list = await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { key: b.apiKey });
    expect(list.status).toBe(200);
    const created = finalMessage(await post(server.mcpUrl, call('blocks.create', { title: 'after claim', kind: 'text' }), { key: b.apiKey }));
    expect(created.result.isError).toBeFalsy();
    const listed = finalMessage(await post(server.mcpUrl, call('blocks.list', {}), { key: b.apiKey })).result.structuredContent;
    expect(listed.blocks.map((x: { title: string }) => x.title)).toEqual(['after claim']);
  });
});

describe('unknown and malformed links', () => {
  const unknown = () => randomBytes(24).toString('base64url');

  test.each([
    ['an unknown well-formed token', () => unknown()],
    ['a token one character off', () => null],
    ['a short token', () => 'abc'],
    ['an over-long token', () => 'a'.repeat(500)],
    ['a token with a dot segment', () => '..%2F..%2Fagent.md'],
    ['a token with a NUL', () => `${unknown()}%00`],
    ['a token with spaces', () => `${unknown()}%20x`],
    ['an extra path segment', () => `${unknown()}/extra`],
    ['an empty token', () => ''],
  ])('%s gives 404', async (_label, make) => {
    let token = make();
    if (token === null) {
      const b = await fresh();
      const real = new URL(b.claimUrl).pathname.split('/').pop()!;
      token = real.slice(0, -1) + (real.endsWith('A') ? 'B' : 'A');
    }
    const url = `${server.baseUrl}/claim/${token}`;
    for (const accept of [undefined, asJson]) {
      for (const method of ['GET', 'POST']) {
        const reply = await request(url, method, accept);
        expect(reply.status, `${method} ${url} (${accept})`).toBe(404);
        if (accept === asJson) expect(reply.json).toEqual(expect.objectContaining({ error: expect.any(String), message: expect.any(String) }));
        else expect(reply.headers.get('content-type')).toBe('text/html; charset=utf-8');
      }
    }
  });

  it('a claim link of another server is unknown here', async () => {
    const other = await startReference();
    try {
      const b = await bootstrap(other, { humanEmail: `x-${randomUUID()}@example.com` });
      const token = new URL(b.claimUrl).pathname.split('/').pop();
      expect((await request(`${server.baseUrl}/claim/${token}`, 'POST', asJson)).status).toBe(404);
    } finally {
      await other.close();
    }
  });
});

describe('other methods', () => {
  test.each(['PUT', 'PATCH', 'DELETE', 'OPTIONS'])('%s gives 405 with Allow', async (method) => {
    const b = await fresh();
    const reply = await request(b.claimUrl, method, asJson);
    expect(reply.status).toBe(405);
    const allow = (reply.headers.get('allow') ?? '').split(',').map((m) => m.trim()).sort();
    expect(allow).toEqual(['GET', 'HEAD', 'POST']);
    // A refused method claims nothing.
    expect((await request(b.claimUrl, 'GET', asJson)).json.claimed).toBe(false);
  });
});

describe('escaping', () => {
  const hostile = {
    canvasName: '<script>alert("canvas")</script>',
    workspaceName: '"><img src=x onerror=alert(1)>',
    agentName: "O'Brien & <b>Co</b>",
  };

  function expectEscaped(html: string): void {
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>Co');
    // The names are still shown, as text.
    expect(html).toMatch(/&(?:lt|#60|#x3c);script&(?:gt|#62|#x3e);/i);
    expect(html).toMatch(/&(?:lt|#60|#x3c);img src=x onerror=alert\(1\)&(?:gt|#62|#x3e);/i);
    expect(html.match(/<script\b/gi)).toBeNull();
  }

  it('escapes names on the claim page, the claimed page and the conflict page', async () => {
    const b = await fresh(hostile);
    const view = await request(b.claimUrl, 'GET');
    expectEscaped(view.text);
    // The <title> must not be broken out of either.
    expect(view.text).toMatch(/<title>[^<]*&(?:lt|#60);script&(?:gt|#62);[^<]*<\/title>/i);
    const claimed = await request(b.claimUrl, 'POST');
    expect(claimed.status).toBe(200);
    expect(claimed.text).toMatch(/&(?:lt|#60|#x3c);script&(?:gt|#62|#x3e);/i);
    expect(claimed.text).not.toContain('<script>alert');
    const again = await request(b.claimUrl, 'GET');
    expect(again.text).not.toContain('<script>alert');
    const conflict = await request(b.claimUrl, 'POST');
    expect(conflict.status).toBe(409);
    expect(conflict.text).not.toContain('<script>alert');
  });

  it('returns the names unchanged in JSON', async () => {
    const b = await fresh(hostile);
    const reply = await request(b.claimUrl, 'GET', asJson);
    expect(reply.json.canvas.name).toBe(hostile.canvasName);
    expect(reply.json.workspace.name).toBe(hostile.workspaceName);
  });
});
