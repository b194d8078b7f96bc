import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, generateKey, hashKey, keyPattern, mintKey } from '../../service/reference-server/keys.js';
import { Store } from '../../service/reference-server/store.js';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';
import { call, post } from '../helpers/mcp-http.js';

let server: ReferenceServer;
let key: string;
const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

beforeAll(async () => {
  server = await startReference({ bootstrapPlan: 'unlimited' });
  ({ apiKey: key } = await bootstrap(server));
});
afterAll(() => server.close());

async function withAuthorization(value: string | undefined) {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (value !== undefined) headers.authorization = value;
  const res = await fetch(server.mcpUrl, { method: 'POST', headers, body: JSON.stringify(list) });
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: await res.text() };
}

describe('API keys', () => {
  it('have the form <prefix>_live_<secret> and fit RFC 6750 b64token', () => {
    const k = generateKey('cnv');
    expect(k).toMatch(keyPattern('cnv'));
    expect(k).toMatch(/^[A-Za-z0-9._~+/-]+=*$/);
    expect(new Set(Array.from({ length: 50 }, () => generateKey('cnv'))).size).toBe(50);
  });

  it('match their prefix literally, whatever characters it holds', () => {
    for (const prefix of ['acme_sk', 'a.b', 'a+b/c']) expect(generateKey(prefix)).toMatch(keyPattern(prefix));
    const key = generateKey('a.b');
    expect(`axb${key.slice(3)}`).not.toMatch(keyPattern('a.b'));
    expect(generateKey('acme')).not.toMatch(keyPattern('acme_sk'));
  });

  it('are stored only as a hash', () => {
    const store = new Store();
    const ws = store.createWorkspace({ name: 'w', plan: 'trial' });
    const { key: plaintext, record } = mintKey(store, 'cnv', { workspaceId: ws.id, label: 'laptop', temporary: false });
    const dump = JSON.stringify(store.db.prepare('SELECT * FROM api_keys').all());
    expect(dump).not.toContain(plaintext);
    expect(record.keyHash).toBe(hashKey(plaintext));
    expect(record.label).toBe('laptop');
    store.close();
  });

  it('authenticate tells the reasons apart', () => {
    const store = new Store();
    const ws = store.createWorkspace({ name: 'w', plan: 'trial' });
    const { key: k, record } = mintKey(store, 'cnv', { workspaceId: ws.id, label: 'l', temporary: false });
    expect(authenticate(store, 'cnv', undefined)).toEqual({ ok: false, reason: 'missing' });
    expect(authenticate(store, 'cnv', `Basic ${k}`)).toEqual({ ok: false, reason: 'scheme' });
    expect(authenticate(store, 'cnv', 'Bearer')).toEqual({ ok: false, reason: 'malformed' });
    expect(authenticate(store, 'cnv', `Bearer ${generateKey('cnv')}`)).toEqual({ ok: false, reason: 'unknown' });
    expect(authenticate(store, 'cnv', `bearer ${k}`)).toMatchObject({ ok: true });
    store.revokeKey(record.id);
    expect(authenticate(store, 'cnv', `Bearer ${k}`)).toEqual({ ok: false, reason: 'revoked' });
    store.close();
  });

  it('looks keys up afresh once another connection to the shared file changed anything (cached lookups)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'auth-cache-'));
    const file = join(dir, 'canvas.db');
    const a = new Store(file);
    const b = new Store(file);
    try {
      const ws = a.createWorkspace({ name: 'w', plan: 'trial' });
      const { key: k, record } = mintKey(a, 'cnv', { workspaceId: ws.id, label: 'l', temporary: false });
      for (let i = 0; i < 3; i++) expect(authenticate(a, 'cnv', `Bearer ${k}`)).toMatchObject({ ok: true, workspace: { plan: 'trial' } });
      // Another connection (another process in production: the admin command, a replica) changes the plan...
      b.db.prepare('UPDATE workspaces SET plan = ? WHERE id = ?').run('team', ws.id);
      expect(authenticate(a, 'cnv', `Bearer ${k}`)).toMatchObject({ ok: true, workspace: { plan: 'team' } });
      // ...and revokes the key: the very next lookup says so.
      expect(b.revokeKey(record.id)).toBe(true);
      expect(authenticate(a, 'cnv', `Bearer ${k}`)).toEqual({ ok: false, reason: 'revoked' });
      // A key minted elsewhere is known at once (unknown keys are never remembered).
      const { key: k2 } = mintKey(b, 'cnv', { workspaceId: ws.id, label: 'l2', temporary: false });
      expect(authenticate(a, 'cnv', `Bearer ${k2}`)).toMatchObject({ ok: true });
    } finally {
      a.close();
      b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('authentication on the MCP endpoint', () => {
  const variants: [string, () => string | undefined][] = [
    ['no Authorization header', () => undefined],
    ['an empty header', () => ''],
    ['Bearer with nothing after it', () => 'Bearer'],
    ['Bearer and a space', () => 'Bearer '],
    ['the Basic scheme', () => `Basic ${Buffer.from(`user:${key}`).toString('base64')}`],
    ['the key without a scheme', () => key],
    ['the Token scheme', () => `Token ${key}`],
    ['a wrong prefix', () => `Bearer xyz${key.slice(3)}`],
    ['the prefix in upper case', () => `Bearer ${key.slice(0, 3).toUpperCase()}${key.slice(3)}`],
    ['_test_ instead of _live_', () => `Bearer ${key.replace('_live_', '_test_')}`],
    ['the secret in swapped case', () => `Bearer ${key.slice(0, 9)}${[...key.slice(9)].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('')}`],
    ['one character more', () => `Bearer ${key}x`],
    ['one character less', () => `Bearer ${key.slice(0, -1)}`],
    ['the last character changed', () => `Bearer ${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`],
    ['an unknown well-formed key', () => `Bearer ${generateKey('cnv')}`],
    ['two keys', () => `Bearer ${key} ${key}`],
    ['a key with a comma', () => `Bearer ${key},`],
    ['a quoted key', () => `Bearer "${key}"`],
  ];

  it.each(variants)('%s gets 401 with a Bearer challenge and no echo of the credential', async (_name, value) => {
    const sent = value();
    const res = await withAuthorization(sent);
    expect(res.status).toBe(401);
    expect(res.challenge).toMatch(/^Bearer\b/);
    expect(res.body).not.toContain(key.slice(9));
    if (sent) expect(res.body).not.toContain(sent.replace(/^\S+\s*/, '') || '\u0000');
  });

  it('a request without credentials, or with another scheme, gets a challenge without an error code (RFC 6750 §3)', async () => {
    expect((await withAuthorization(undefined)).challenge).not.toMatch(/error=/);
    expect((await withAuthorization(`Basic ${Buffer.from('u:p').toString('base64')}`)).challenge).not.toMatch(/error=/);
  });

  it('a bad credential gets error="invalid_token"', async () => {
    expect((await withAuthorization(`Bearer ${generateKey('cnv')}`)).challenge).toMatch(/error="invalid_token"/);
  });

  it.each([
    ['lower-case scheme', () => `bearer ${key}`],
    ['upper-case scheme', () => `BEARER ${key}`],
    ['several spaces', () => `Bearer   ${key}`],
    ['a trailing space', () => `Bearer ${key} `],
  ])('%s is accepted (RFC 9110 §11.1: the scheme is case-insensitive)', async (_name, value) => {
    expect((await withAuthorization(value())).status).toBe(200);
  });

  it('a key in the query string is not a credential', async () => {
    const res = await fetch(`${server.mcpUrl}?access_token=${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(list) });
    expect(res.status).toBe(401);
  });

  it('a revoked key stops working on the next request', async () => {
    const { apiKey } = await bootstrap(server);
    expect((await withAuthorization(`Bearer ${apiKey}`)).status).toBe(200);
    const record = server.store.keyByHash(hashKey(apiKey))!;
    expect(server.store.revokeKey(record.id)).toBe(true);
    expect((await withAuthorization(`Bearer ${apiKey}`)).status).toBe(401);
  });

  it('a key minted by an admin works like a bootstrap key', async () => {
    const ws = server.store.createWorkspace({ name: 'Acme', plan: 'team' });
    server.store.createCanvas(ws.id, 'Main', null);
    const { key: minted } = mintKey(server.store, server.config.keyPrefix, { workspaceId: ws.id, label: 'ci', temporary: false });
    const res = await post(server.mcpUrl, call('workspace.get'), { key: minted });
    expect(res.json.result.structuredContent.workspace).toMatchObject({ id: ws.id, name: 'Acme', plan: 'team' });
  });
});

describe('workspace scoping', () => {
  it('a key never sees another workspace\'s blocks, data sources or ids', async () => {
    const a = await bootstrap(server);
    const b = await bootstrap(server);
    const created = await post(server.mcpUrl, call('blocks.create', { title: 'secret', kind: 'text' }), { key: a.apiKey });
    const blockId = created.messages!.at(-1).result.structuredContent.block.id;
    const listB = await post(server.mcpUrl, call('blocks.list'), { key: b.apiKey });
    expect(listB.json.result.structuredContent.blocks).toEqual([]);
    const publishB = await post(server.mcpUrl, call('blocks.publish', { blockId }), { key: b.apiKey });
    expect(publishB.json.result.isError).toBe(true);
    const buildB = await post(server.mcpUrl, call('blocks.build', { blockId }), { key: b.apiKey });
    expect(buildB.messages!.at(-1).result.isError).toBe(true);
    const listA = await post(server.mcpUrl, call('blocks.list'), { key: a.apiKey });
    expect(listA.json.result.structuredContent.blocks.map((x: { id: string }) => x.id)).toEqual([blockId]);
  });
});
