import { randomBytes } from 'node:crypto';
import { type CheckContext, defineSuite } from '../src/engine/check.js';
import { splitKey } from '../src/kit/key-form.js';
import { finalMessage } from '../src/mcp/mcp-session.js';
import { describeSighting } from '../src/judging/key-echoes.js';
import type { CallRecipe } from '../src/profile/profile.js';
import type { WireResponse } from '../src/wire/client.js';
import { redactInPlace } from '../src/wire/redact.js';

const { check, describe, seal } = defineSuite('auth');

/**
 * service.md §Authentication with the HTTP rules for rejecting a credential: each rejection is a 401 with
 * a Bearer challenge, before any JSON-RPC processing, and never repeats the credential. Variants of the
 * target's own key are sent so that a server which trims, truncates or case-folds keys is caught.
 */

/** tools/list with an id of the run's own (src/wire/request-ids.ts). */
const list = (c: CheckContext) => ({ jsonrpc: '2.0', id: c.run.ids.next(), method: 'tools/list' });
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

interface Key { key: string; prefix: string; secret: string }

/** The target's key split into `<prefix>_live_<secret>`; not testable without one. */
function keyOf(c: CheckContext): Key {
  const key = c.target.apiKey;
  if (!key) c.notTestable(c.target.noKeyReason ?? 'the target has no API key (give one with --api-key, or let the harness bootstrap one)');
  const parts = splitKey(key);
  // "The key has the form `<KEY_PREFIX>_live_<secret>`." A key of another form is the service's, and its failure.
  c.verify(parts !== undefined, 'the target\'s key is not of the form <KEY_PREFIX>_live_<secret> (§Authentication 2), so its variants cannot be built', '<KEY_PREFIX>_live_<secret>', `a key of ${key.length} characters without "_live_"`);
  const { prefix, secret } = parts!;
  const half = Math.floor(key.length / 2);
  protect(c, key, secret, key.slice(0, half), key.slice(half));
  return { key, prefix, secret };
}

/**
 * Variants of the key (truncated, case-folded, base64-wrapped, split) reveal it as surely as the key does,
 * and the wire log redacts only the target's keys themselves: every long token this suite sends is scrubbed
 * from the check's evidence after each exchange, requests and replies alike.
 */
const sensitive = new WeakMap<CheckContext, Set<string>>();
const MIN_SCRUBBED = 12;

function protect(c: CheckContext, ...values: string[]): void {
  let set = sensitive.get(c);
  if (!set) sensitive.set(c, (set = new Set()));
  for (const v of values) for (const token of v.split(/[\s,]+/)) if (token.length >= MIN_SCRUBBED) set.add(token);
}

function scrub(c: CheckContext): void {
  const secrets = [...(sensitive.get(c) ?? [])];
  if (secrets.length > 0) for (const exchange of c.http.log) redactInPlace(exchange, secrets);
}

/**
 * POST tools/list with exactly this Authorization header value (null: none). `refusal`: the credential is to be
 * refused, so a 429 is its answer (the description demands 401), not a throttle to wait out; a credential
 * that is to be accepted (a control, a scheme spelling) waits a 429 out like any request.
 */
async function send(c: CheckContext, authorization: string | null, refusal = true): Promise<WireResponse> {
  if (authorization) protect(c, authorization);
  try {
    return await c.mcp.post(list(c), { key: null, headers: authorization === null ? {} : { authorization }, refusal });
  } finally {
    scrub(c);
  }
}

/** A label for a variant that names how it was built, never the key. */
interface Variant { label: string; authorization: string | null }

async function sendAll(c: CheckContext, variants: Variant[], refusal = true): Promise<{ v: Variant; res: WireResponse }[]> {
  return Promise.all(variants.map(async (v) => ({ v, res: await send(c, v.authorization, refusal) })));
}

function expect401(c: CheckContext, results: { v: Variant; res: WireResponse }[]): void {
  const wrong = results.filter((r) => r.res.status !== 401).map((r) => `${r.v.label}: ${r.res.status}`);
  c.verify(wrong.length === 0, `every variant is rejected with 401 (${wrong.join('; ')})`, 401, wrong);
}

/** Whether the request was carried out: a 2xx with a JSON-RPC result that is not a tool error. */
function accepted(res: WireResponse): boolean {
  if (res.status < 200 || res.status >= 300) return false;
  const m = finalMessage(res);
  return !!m && m.error === undefined && m.result !== undefined && m.result.isError !== true;
}

/**
 * The start of both workspace-scoping checks: a second workspace's key, the profile's recipes (all checked
 * before anything is written), and a probe block created with the target's key.
 */
async function scopingProbe(c: CheckContext, second: 'listBlocks' | 'publishBlock') {
  keyOf(c);
  const { otherKey } = c.target;
  if (!otherKey) c.notTestable(c.target.noOtherKeyReason ?? 'no key of a second workspace for this target');
  const createBlock = c.target.profile.calls.createBlock ?? c.notTestable(c.target.profile.gaps?.createBlock ?? `the profile "${c.target.profile.name}" has no createBlock call`);
  const recipe = c.target.profile.calls[second] ?? c.notTestable(c.target.profile.gaps?.[second] ?? `the profile "${c.target.profile.name}" has no ${second} call`);
  const title = `scoping probe ${randomBytes(6).toString('hex')}`;
  const vars: Record<string, unknown> = { title };
  const created = await c.mcp.recipe(createBlock, vars);
  c.verify(accepted(created) && typeof vars.blockId === 'string', 'the block is created with the first key', 'a block id', finalMessage(created) ?? created.status);
  return { otherKey, recipe, vars, title, blockId: vars.blockId as string };
}


function otherChar(ch: string): string {
  const i = BASE62.indexOf(ch);
  return BASE62[(i < 0 ? 0 : i + 1) % BASE62.length]!;
}

function randomSecret(length: number): string {
  return Array.from(randomBytes(Math.max(length, 8)), (b) => BASE62[b % 62]).join('').slice(0, Math.max(length, 8));
}

function swapCase(s: string): string {
  return Array.from(s, (ch) => (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase())).join('');
}

/** The challenges of a WWW-Authenticate value name the Bearer scheme. */
function bearerChallenge(value: string | undefined): boolean {
  return !!value && /(?:^|,)\s*bearer(?:\s|,|$)/i.test(value);
}

/** The `error` auth-param of a challenge (not `error_description`), or undefined. */
function errorCode(value: string | undefined): string | undefined {
  return /(?:^|[\s,])error\s*=\s*"?([^",\s]*)/i.exec(value ?? '')?.[1];
}

describe.concurrent('auth', () => {
  // "Every request to the MCP endpoint carries `Authorization: Bearer <API_KEY>`."
  // "Invalid or expired tokens MUST receive a HTTP 401 response."
  // The key travels in that header only: "Access tokens MUST NOT be included in the URI query string" (MCP
  // 2025-06-18 Authorization §Token Handling, a client rule) is why a server must not invite it elsewhere. A request
  // whose only credential is the key in the query string or the body has no Authorization header: a 401.
  check({ ids: 'auth-missing-key-401', name: 'requests without an Authorization header get 401, whatever the message', run: async (c) => {
    const { key } = keyOf(c);
    const bodies: [string, unknown][] = [
      ['tools/list', list(c)],
      ['ping', { jsonrpc: '2.0', id: c.run.ids.next(), method: 'ping' }],
      ['initialize', { jsonrpc: '2.0', id: c.run.ids.next(), method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcp-conformance', version: '0' } } }],
      ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
      ['tools/call blocks.list', { jsonrpc: '2.0', id: c.run.ids.next(), method: 'tools/call', params: { name: 'blocks.list', arguments: {} } }],
    ];
    const results = await Promise.all(bodies.map(async ([label, body]) => ({ v: { label, authorization: null }, res: await c.mcp.post(body, { key: null, refusal: true }) })));
    try {
      const elsewhere = await Promise.all([
        ...['access_token', 'api_key'].map(async (name) => {
          const url = new URL(c.target.mcpUrl);
          url.searchParams.set(name, key);
          const body = list(c);
          const res = await c.http.request(url.href, { method: 'POST', headers: c.mcp.headers({ key: null }, body), json: body, throttleIsAnswer: true });
          return { v: { label: `tools/list with the key as ?${name}= and no Authorization header`, authorization: null }, res };
        }),
        (async () => ({ v: { label: 'tools/list with the key in the body (params.apiKey) and no Authorization header', authorization: null }, res: await c.mcp.post({ ...list(c), params: { apiKey: key } }, { key: null, refusal: true }) }))(),
      ]);
      results.push(...elsewhere);
    } finally {
      scrub(c);
    }
    expect401(c, results);
  } });

  // "credentials = "Bearer" 1*SP b64token" — "Invalid or expired tokens MUST receive a HTTP 401 response."
  check({ ids: 'auth-empty-credential-401', name: 'an empty Authorization header or a bare "Bearer" gets 401', run: async (c) => {
    keyOf(c);
    expect401(c, await sendAll(c, [
      { label: 'empty header', authorization: '' },
      { label: '"Bearer"', authorization: 'Bearer' },
      { label: '"Bearer " and spaces', authorization: 'Bearer    ' },
      { label: '"Bearer" and an empty quoted string', authorization: 'Bearer ""' },
    ]));
  } });

  // "The MCP transport is Streamable HTTP with a static Bearer token." — "401 Unauthorized: Authorization required or token invalid".
  check({ ids: 'auth-other-scheme-401', name: 'the valid key under another scheme (Basic, Token, ApiKey) gets 401', run: async (c) => {
    const { key } = keyOf(c);
    expect401(c, await sendAll(c, [
      { label: 'Basic <key>', authorization: `Basic ${key}` },
      { label: 'Basic base64(user:key)', authorization: `Basic ${Buffer.from(`user:${key}`).toString('base64')}` },
      { label: 'Basic base64(key:)', authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
      { label: 'Token <key>', authorization: `Token ${key}` },
      { label: 'ApiKey <key>', authorization: `ApiKey ${key}` },
      { label: 'the bare key, no scheme', authorization: key },
    ]));
  } });

  // "The key has the form `<KEY_PREFIX>_live_<secret>`." — "Invalid or expired tokens MUST receive a HTTP 401 response."
  check({ ids: 'auth-wrong-prefix-401', name: 'the key\'s secret under another prefix, or as _test_, gets 401', run: async (c) => {
    const { prefix, secret } = keyOf(c);
    const other = prefix === 'zzq' ? 'zzr' : 'zzq';
    expect401(c, await sendAll(c, [
      { label: 'another prefix', authorization: `Bearer ${other}_live_${secret}` },
      { label: 'the prefix doubled', authorization: `Bearer ${prefix}${prefix}_live_${secret}` },
      { label: '_test_ instead of _live_', authorization: `Bearer ${prefix}_test_${secret}` },
      { label: 'no _live_', authorization: `Bearer ${prefix}_${secret}` },
      { label: 'the secret alone', authorization: `Bearer ${secret}` },
    ]));
  } });

  // "The plaintext key is displayed once; the service stores only a hash." — "Invalid or expired tokens MUST receive a HTTP 401 response."
  check({ ids: 'auth-altered-key-401', name: 'the key with characters added, removed or changed gets 401', run: async (c) => {
    const { key, prefix } = keyOf(c);
    const last = key.at(-1)!;
    const firstSecret = `${prefix}_live_`.length;
    expect401(c, await sendAll(c, [
      { label: 'one character appended', authorization: `Bearer ${key}x` },
      { label: 'three characters appended', authorization: `Bearer ${key}AB9` },
      { label: '"=" appended', authorization: `Bearer ${key}=` },
      { label: 'last character removed', authorization: `Bearer ${key.slice(0, -1)}` },
      { label: 'last character changed', authorization: `Bearer ${key.slice(0, -1)}${otherChar(last)}` },
      { label: 'first secret character changed', authorization: `Bearer ${key.slice(0, firstSecret)}${otherChar(key[firstSecret] ?? 'A')}${key.slice(firstSecret + 1)}` },
    ]));
  } });

  // "MCP servers, acting in their role as an OAuth 2.1 resource server, MUST validate access tokens."
  // "Invalid or expired tokens MUST receive a HTTP 401 response."
  check({ ids: 'auth-unknown-key-401', name: 'well-formed keys that were never minted get 401', run: async (c) => {
    const { prefix, secret } = keyOf(c);
    expect401(c, await sendAll(c, [
      { label: 'random secret of the same length', authorization: `Bearer ${prefix}_live_${randomSecret(secret.length)}` },
      { label: 'another random secret', authorization: `Bearer ${prefix}_live_${randomSecret(secret.length)}` },
      { label: 'all-zero secret', authorization: `Bearer ${prefix}_live_${'0'.repeat(Math.max(secret.length, 8))}` },
    ]));
  } });

  // "One key per agent or per machine is advised, so revocation is per place." — "Invalid or expired tokens MUST receive a HTTP 401 response."
  check({ ids: 'auth-revoked-key-401', name: 'a revoked key gets 401', run: async (c) => {
    keyOf(c);
    const revoked = c.target.revokedKey;
    if (!revoked) c.notTestable('no revoked key for this target (give one with --revoked-key)');
    const [live, dead] = await Promise.all([send(c, `Bearer ${c.target.apiKey}`, false), send(c, `Bearer ${revoked}`)]);
    c.verify(live.status === 200, 'the live key is accepted (control)', 200, live.status);
    c.verify(dead.status === 401, 'the revoked key gets 401', 401, dead.status);
  } });

  // "It uses a case-insensitive token to identify the authentication scheme" — only the scheme: the key is compared exactly.
  check({ ids: 'auth-key-case-sensitive', name: 'case variants of the key get 401', run: async (c) => {
    const { key, prefix, secret } = keyOf(c);
    const variants: Variant[] = [];
    if (key.toUpperCase() !== key) variants.push({ label: 'the key upper-cased', authorization: `Bearer ${key.toUpperCase()}` });
    if (key.toLowerCase() !== key) variants.push({ label: 'the key lower-cased', authorization: `Bearer ${key.toLowerCase()}` });
    if (swapCase(secret) !== secret) variants.push({ label: 'the secret with its case swapped', authorization: `Bearer ${prefix}_live_${swapCase(secret)}` });
    if (prefix.toUpperCase() !== prefix) variants.push({ label: 'the prefix upper-cased', authorization: `Bearer ${prefix.toUpperCase()}_live_${secret}` });
    variants.push({ label: '_LIVE_ upper-cased', authorization: `Bearer ${prefix}_LIVE_${secret}` });
    expect401(c, await sendAll(c, variants));
  } });

  // "It uses a case-insensitive token to identify the authentication scheme."
  check({ ids: 'auth-scheme-case-insensitive', name: 'bearer, BEARER and bEaReR are accepted like Bearer', run: async (c) => {
    const { key } = keyOf(c);
    const results = await sendAll(c, ['Bearer', 'bearer', 'BEARER', 'bEaReR'].map((scheme) => ({ label: scheme, authorization: `${scheme} ${key}` })), false);
    const refused = results.filter((r) => !accepted(r.res)).map((r) => `${r.v.label}: ${r.res.status}`);
    c.verify(refused.length === 0, `the key is accepted under every spelling of the scheme (${refused.join('; ')})`, 'tools/list result for each', refused);
  } });

  // "credentials = "Bearer" 1*SP b64token" — a credential split by whitespace, or followed by another token, is not the key.
  check({ ids: 'auth-whitespace-variants-401', name: 'the key followed by another token, or split by a space, gets 401', run: async (c) => {
    const { key } = keyOf(c);
    const half = Math.floor(key.length / 2);
    expect401(c, await sendAll(c, [
      { label: 'key, space, another token', authorization: `Bearer ${key} x` },
      { label: 'key, space, the key again', authorization: `Bearer ${key} ${key}` },
      { label: 'key split in two by a space', authorization: `Bearer ${key.slice(0, half)} ${key.slice(half)}` },
      { label: 'another token, space, key', authorization: `Bearer x ${key}` },
      { label: 'key, comma, another token', authorization: `Bearer ${key}, x` },
    ]));
    // Separators the grammar does not allow, but that reject nothing of the key: reported, not judged.
    const lenient = await sendAll(c, [
      { label: 'two spaces after the scheme', authorization: `Bearer  ${key}` },
      { label: 'a tab after the scheme', authorization: `Bearer\t${key}` },
    ], false);
    for (const r of lenient) c.observe(`${r.v.label}: HTTP ${r.res.status}`);
  } });

  // "The server generating a 401 response MUST send a WWW-Authenticate header field containing at least one
  // challenge applicable to the target resource." (Bearer keys: the challenge uses the scheme `Bearer`.)
  check({ ids: 'auth-www-authenticate', name: 'every 401 carries a WWW-Authenticate challenge naming Bearer', run: async (c) => {
    const { key, prefix, secret } = keyOf(c);
    const variants: Variant[] = [
      { label: 'no Authorization header', authorization: null },
      { label: 'bare "Bearer"', authorization: 'Bearer' },
      { label: 'Basic <key>', authorization: `Basic ${key}` },
      { label: 'unknown well-formed key', authorization: `Bearer ${prefix}_live_${randomSecret(secret.length)}` },
      { label: 'altered key', authorization: `Bearer ${key}x` },
    ];
    if (c.target.revokedKey) variants.push({ label: 'revoked key', authorization: `Bearer ${c.target.revokedKey}` });
    const results = (await sendAll(c, variants)).filter((r) => r.res.status === 401);
    c.verify(results.length > 0, 'at least one rejected request to inspect', '>= 1 401', 0);
    const missing = results.filter((r) => !bearerChallenge(r.res.headers['www-authenticate'])).map((r) => `${r.v.label}: ${JSON.stringify(r.res.headers['www-authenticate'] ?? null)}`);
    c.verify(missing.length === 0, `each 401 has WWW-Authenticate with a Bearer challenge (${missing.join('; ')})`, 'WWW-Authenticate: Bearer ...', missing);
  } });

  // "If the request lacks any authentication information (e.g., the client was unaware that authentication is
  // necessary or attempted using an unsupported authentication method), the resource server SHOULD NOT include
  // an error code or other error information."
  check({ ids: 'auth-missing-no-error-code', name: 'the challenge for a request without credentials has no error code', run: async (c) => {
    const { key } = keyOf(c);
    const [none, basic] = await Promise.all([send(c, null), send(c, `Basic ${key}`)]);
    c.verify(none.status === 401, 'a request without credentials gets 401', 401, none.status);
    const code = errorCode(none.headers['www-authenticate']);
    c.verify(code === undefined, 'the challenge carries no error code', 'no error=', `error=${code}`);
    // An unsupported scheme falls under the same sentence; reported, not judged (see spec-requirements AUTH-07).
    c.observe(`unsupported scheme (Basic): HTTP ${basic.status}, error code ${errorCode(basic.headers['www-authenticate']) ?? 'none'}`);
  } });

  // "If the protected resource request included an access token and failed authentication, the resource server
  // SHOULD include the "error" attribute" — "invalid_token: The access token provided is expired, revoked,
  // malformed, or invalid for other reasons."
  check({ ids: 'auth-invalid-token-error', name: 'a rejected Bearer token gets error="invalid_token" in the challenge', run: async (c) => {
    const { key, prefix, secret } = keyOf(c);
    const variants: Variant[] = [
      { label: 'unknown well-formed key', authorization: `Bearer ${prefix}_live_${randomSecret(secret.length)}` },
      { label: 'altered key', authorization: `Bearer ${key}x` },
      { label: 'malformed token', authorization: 'Bearer not-a-key' },
    ];
    if (c.target.revokedKey) variants.push({ label: 'revoked key', authorization: `Bearer ${c.target.revokedKey}` });
    const results = await sendAll(c, variants);
    expect401(c, results);
    const wrong = results.map((r) => ({ label: r.v.label, code: errorCode(r.res.headers['www-authenticate']) })).filter((r) => r.code !== 'invalid_token');
    c.verify(wrong.length === 0, `each challenge says error="invalid_token" (${wrong.map((w) => `${w.label}: ${w.code ?? 'none'}`).join('; ')})`, 'invalid_token', wrong);
  } });

  // "The plaintext key is displayed once; the service stores only a hash. There is no way to show it again."
  check({ ids: 'auth-key-not-echoed', name: 'a rejection never repeats the credential in its body or headers', run: async (c) => {
    const { key, prefix, secret } = keyOf(c);
    const variants: Variant[] = [
      { label: 'Basic <key>', authorization: `Basic ${key}` },
      { label: 'Token <key>', authorization: `Token ${key}` },
      { label: 'key with one character appended', authorization: `Bearer ${key}x` },
      { label: 'key upper-cased', authorization: `Bearer ${key.toUpperCase()}` },
      { label: 'key followed by another token', authorization: `Bearer ${key} x` },
      { label: 'unknown well-formed key', authorization: `Bearer ${prefix}_live_${randomSecret(secret.length)}` },
    ];
    if (c.target.revokedKey) variants.push({ label: 'revoked key', authorization: `Bearer ${c.target.revokedKey}` });
    const results = await sendAll(c, variants);
    const leaks: string[] = [];
    for (const { v, res } of results) {
      const credential = v.authorization!.replace(/^\S+\s+/, '').split(/\s/, 1)[0]!;
      const revealed = [credential, key, secret, ...(c.target.revokedKey ? [c.target.revokedKey] : [])].filter((s) => s.length >= 8);
      const where = [['body', res.text] as const, ...Object.entries(res.headers).map(([k, val]) => [`header ${k}`, val] as const)];
      for (const [place, text] of where) if (revealed.some((s) => text.includes(s))) leaks.push(`${v.label}: in the ${place}`);
    }
    c.verify(leaks.length === 0, `no reply repeats the credential (${leaks.join('; ')})`, 'the credential appears nowhere in the reply', leaks);
  } });

  // "The plaintext key is displayed once; the service stores only a hash. There is no way to show it again."
  // "It is to be treated as a password." No reply carries a key the run holds, in any spelling: the replies of
  // every other check are judged too, once the run is over (src/judging/key-echoes.ts); these are this row's own.
  check({ ids: 'auth-key-never-echoed', name: 'replies to valid requests (tools/list, a plain call, a streaming call) carry no key in any spelling', run: async (c) => {
    if (!c.target.apiKey) c.notTestable(c.target.noKeyReason ?? 'the target has no API key (give one with --api-key, or let the harness bootstrap one)');
    const { profile } = c.target;
    const needsVars = (r: CallRecipe) => JSON.stringify(r.arguments).includes('{{');
    let vars: Promise<Record<string, unknown>> | undefined;
    const run = async (r: CallRecipe, progressToken?: string) => c.mcp.recipe(r, needsVars(r) ? { ...(await (vars ??= c.mcp.setup())) } : {}, progressToken ? { progressToken } : {});
    const sent: [string, Promise<WireResponse>][] = [['tools/list', c.mcp.request('tools/list')]];
    const plain = profile.calls.listBlocks;
    if (plain) sent.push([`${plain.tool} (plain)`, run(plain)]);
    else c.observe('the profile has no listBlocks recipe: no plain tool call was sent');
    // A stream without side effects first (schedule.preview), and one that needs no setup.
    const streams = Object.values(profile.streaming).sort((a, b) => Number(needsVars(a)) - Number(needsVars(b)) || Number(b.tool === 'schedule.preview') - Number(a.tool === 'schedule.preview'));
    if (streams[0]) sent.push([`${streams[0].tool} (streaming)`, run(streams[0], 'key-never-echoed')]);
    else c.observe('the profile has no streaming recipe: no streaming call was sent');
    const replies = await Promise.all(sent.map(async ([label, p]) => `${label}: HTTP ${(await p).status}`));
    c.observe(`replies looked through: ${replies.join(', ')}`);
    const seen = c.http.keySightings;
    c.verify(seen.length === 0, `no reply carries a key the run holds (${seen.map(describeSighting).join(' | ')})`, 'no key, in any spelling, in any reply', seen.map((s) => ({ request: s.request, status: s.status, found: s.found })));
  } });

  // "A key is workspace-scoped: one key carries the context of one workspace."
  check({ ids: 'auth-workspace-scoped-read', name: 'a block created with one key is never listed with another workspace\'s key', run: async (c) => {
    const { otherKey, recipe: listBlocks, vars, title, blockId } = await scopingProbe(c, 'listBlocks');
    const [own, other] = await Promise.all([c.mcp.recipe(listBlocks, { ...vars }), c.mcp.recipe(listBlocks, { ...vars }, { key: otherKey })]);
    c.verify(accepted(own) && own.text.includes(blockId), 'the first key lists its own block (control)', blockId, own.status);
    c.verify(accepted(other), 'the other key can list its own workspace', 'a blocks.list result', other.status);
    c.verify(!other.text.includes(blockId) && !other.text.includes(title), 'the other workspace\'s list shows neither the block id nor its title', 'absent', 'present');
  } });

  // "A key is workspace-scoped: one key carries the context of one workspace. A key is equivalent to workspace
  // admin for the MCP write surface."
  check({ ids: 'auth-workspace-scoped-write', name: 'another workspace\'s key can neither publish nor build a block', run: async (c) => {
    const { otherKey, recipe: publishBlock, vars } = await scopingProbe(c, 'publishBlock');
    const build = c.target.profile.streaming['blocks.build'];
    const [publish, built] = await Promise.all([
      c.mcp.recipe(publishBlock, { ...vars }, { key: otherKey }),
      build ? c.mcp.recipe(build, { ...vars }, { key: otherKey }) : Promise.resolve(undefined),
    ]);
    c.verify(!accepted(publish), 'publishing the block with the other key is refused (a JSON-RPC error or a tool error)', 'error', finalMessage(publish) ?? publish.status);
    if (built) c.verify(!accepted(built), 'building the block with the other key is refused', 'error', finalMessage(built) ?? built.status);
    else c.observe('the profile has no blocks.build recipe: only publishing was tried');
    // Refused in words but done anyway would still be a leak: the owner sees the block unpublished.
    const published = await c.mcp.call('blocks.list', { published: true });
    c.verify(accepted(published) && !published.text.includes(vars.blockId as string), 'the block is still unpublished for its owner', 'not in blocks.list {published: true}', 'listed as published');
  } });
});

export default seal();
