import fc from 'fast-check';
import { type CheckContext, defineSuite } from '../../src/engine/check.js';
import { finalMessage } from '../../src/mcp/mcp-session.js';
import { applyKeyEdit, describeKeyEdit, keyEditArbitrary } from '../../src/properties/key-mutations.js';
import { freshKey } from '../../src/properties/workspaces.js';
import type { WireResponse } from '../../src/wire/client.js';

const { check, describe, seal } = defineSuite('properties/auth');

/**
 * Authentication searched rather than sampled: every edit of a live key, and any Authorization value at
 * all, is refused with 401, never carried out, never echoed. The scenario suite sends a handful of
 * variants; these properties send hundreds per run.
 */

/** tools/list with an id of the run's own (src/wire/request-ids.ts). */
const list = (c: CheckContext) => ({ jsonrpc: '2.0', id: c.run.ids.next(), method: 'tools/list' });

/** The refusal every invalid credential gets: 401, no JSON-RPC result, the credential not repeated. */
function verifyRefused(c: CheckContext, res: WireResponse, credential: string, what: string): void {
  c.verify(res.status === 401, `${what} gets 401`, 401, res.status);
  c.verify(finalMessage(res)?.result === undefined, `${what} gets no result`, 'no result', 'a result');
  const echoed = credential.length >= 8 && (res.text.includes(credential) || Object.values(res.headers).some((v) => v.includes(credential)));
  // Authorization is never recorded; a credential echoed in a reply is redacted from the evidence too.
  if (echoed) c.addSecret(credential);
  c.verify(!echoed, `the refusal of ${what} does not repeat the credential`, 'the credential absent from the reply', 'the credential in the reply');
}

describe.concurrent('auth properties', () => {
  // "The plaintext key is displayed once; the service stores only a hash." (A key with characters added,
  // removed or changed is another key.) "Invalid or expired tokens MUST receive a HTTP 401 response."
  check({ ids: ['auth-altered-key-401', 'auth-key-not-echoed'], name: 'property: every single-character edit, truncation or extension of a live key gets 401', property: 'auth-key-edits', run: async (c) => {
    const key = await freshKey(c, 'auth-key-edits');
    const live = await c.mcp.post(list(c), { key });
    c.verify(live.status === 200 && finalMessage(live)?.result !== undefined, 'the unedited key works', 200, live.status);
    await c.property({
      arbitrary: keyEditArbitrary,
      show: (edit) => describeKeyEdit(edit, key.length),
      predicate: async (edit) => {
        const edited = applyKeyEdit(key, edit);
        if (edited === key) return true; // replacing a character by itself
        verifyRefused(c, await c.mcp.post(list(c), { key: edited, refusal: true }), edited, `the key with ${describeKeyEdit(edit, key.length)}`);
        return true;
      },
    });
  } });

  // "Every request to the MCP endpoint carries `Authorization: Bearer <API_KEY>`."
  // "MCP servers ... MUST validate access tokens." "Invalid or expired tokens MUST receive a HTTP 401 response."
  check({ ids: ['auth-unknown-key-401', 'auth-other-scheme-401', 'auth-key-not-echoed'], name: 'property: any Authorization value that is not a live key gets 401', property: 'auth-any-value', run: async (c) => {
    const key = await freshKey(c, 'auth-any-value');
    const prefix = key.includes('_live_') ? key.slice(0, key.indexOf('_live_')) : 'key';
    const token = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((x) => String.fromCharCode(x)), minLength: 1, maxLength: 80 });
    const base62 = fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'), minLength: 1, maxLength: 64 });
    const value = fc.oneof(
      token.map((t) => `Bearer ${t}`),
      base62.map((s) => `Bearer ${prefix}_live_${s}`),
      fc.tuple(fc.constantFrom('Basic', 'Token', 'Digest', 'ApiKey', 'Bearer:', 'Bearerx', 'MAC'), token).map(([scheme, t]) => `${scheme} ${t}`),
      token,
    );
    await c.property({
      arbitrary: value,
      predicate: async (authorization) => {
        if (authorization.includes(key)) return true;
        verifyRefused(c, await c.mcp.post(list(c), { key: null, headers: { authorization }, refusal: true }), authorization.replace(/^\S+\s+/, ''), `Authorization ${JSON.stringify(authorization.slice(0, 40))}`);
        return true;
      },
    });
  } });
});

export default seal();
