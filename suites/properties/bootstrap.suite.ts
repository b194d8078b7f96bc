import fc from 'fast-check';
import { describe } from 'vitest';
import { check, type CheckContext } from '../../src/check.js';
import { bootstrapPermit, budgetSpentReason } from '../../src/budget/broker-client.js';
import { finalMessage } from '../../src/mcp-session.js';
import type { WireResponse } from '../../src/wire/client.js';

/**
 * `POST /api/agent/bootstrap` searched: bodies a client may send (unicode and long names, odd but valid
 * addresses, extra fields) always yield a working key and a claim URL; bodies with a field missing, of
 * another type, or an address that is not one get a 4xx; nothing gets a 5xx. Every valid body creates a
 * workspace and sends a mail, so the valid property is capped well below the embedded target's bootstrap
 * burst, and on a deployment each property runs only as often as its share of the bootstrap budget allows.
 */

const PATH = '/api/agent/bootstrap';
const FIELDS = ['humanEmail', 'agentName', 'workspaceName', 'canvasName'] as const;
/** Names a human could give: any visible characters (astral ones included), at least one not a space. */
const NAME = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }).filter((s) => /^[^\p{Cc}\p{Cs}\u2028\u2029]*\S/u.test(s) && !/[\p{Cc}\u2028\u2029]/u.test(s));
/** Addresses a mail system accepts; made unique per run so no two bootstraps share a mailbox. */
const ADDRESS = fc.emailAddress({ size: 'small' }).filter((a) => a.indexOf('@') <= 48 && a.length <= 200);
/** Extra members a newer client might send; the description does not forbid them. */
const EXTRA = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !(FIELDS as readonly string[]).includes(k) && k !== '__proto__'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });

/** Values of every JSON type but string, and strings no field takes. */
const NOT_A_STRING = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }));
/** Strings that are not e-mail addresses. */
const NOT_AN_ADDRESS = fc.oneof(fc.string({ maxLength: 40 }).filter((s) => !s.includes('@')), fc.constantFrom('', '@', 'a@', '@example.com', 'two@@example.com', 'a b@example.com', 'a@b@c.example'));

type Body = Record<string, unknown>;
/** How a body was spoiled, for the verdict: a body spoiled this way is certainly invalid. */
interface Spoiled { body: Body; invalid: string | undefined }

let uniq = 0;
function unique(address: string): string {
  const at = address.lastIndexOf('@');
  return `${address.slice(0, at)}.p${(uniq++).toString(36)}${address.slice(at)}`.replace(/^\.+/, '');
}

async function bootstrap(c: CheckContext, body: Body | string): Promise<WireResponse> {
  // A 429 is waited out by the wire client within the run's wait budget.
  const res = await c.http.request(`${c.target.baseUrl}${PATH}`, {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' },
    ...(typeof body === 'string' ? { raw: body } : { json: body }),
  });
  const key = res.json?.apiKey;
  if (typeof key === 'string' && key.length >= 8) c.addSecret(key);
  return res;
}

/**
 * Bootstraps the property may send, shrinking included: its share of the run's bootstrap budget; undefined
 * where bootstraps are not bounded (the embedded target), so the search shrinks as usual.
 */
async function runsAllowed(c: CheckContext, id: string, wants: number): Promise<number | undefined> {
  if (!c.target.canBootstrap) c.notTestable('bootstrap may not be called on this target (it creates a workspace and sends mail)');
  const permit = await bootstrapPermit(c.target, `property:${id}`, wants);
  if (permit.granted < 1) c.notTestable(budgetSpentReason(`property ${id}`, permit.budget));
  if (permit.budget === undefined) return undefined;
  c.observe(`${permit.granted} run(s), not shrunk on failure: the property's share of the run's bootstrap budget (${permit.budget}, --bootstrap-budget)`);
  return permit.granted;
}

describe.concurrent('bootstrap properties', () => {
  // "Response: includes `apiKey` (a temporary MCP key, returned immediately) and `claimUrl` (a link for the human)."
  // "The agent connects to the MCP endpoint with the returned `apiKey`."
  check(['bootstrap-returns-key', 'bootstrap-returns-claim-url', 'bootstrap-key-works'], 'property: every valid body (unicode names, odd addresses, extra fields) yields a working key and a claim URL', async (c) => {
    const runLimit = await runsAllowed(c, 'bootstrap-valid-bodies', 60);
    const body = fc.record({ humanEmail: ADDRESS, agentName: NAME, workspaceName: NAME, canvasName: NAME, extra: EXTRA })
      .map(({ extra, ...fields }) => ({ ...extra, ...fields }));
    await c.property({
      id: 'bootstrap-valid-bodies',
      arbitrary: body,
      maxRuns: 60,
      ...(runLimit !== undefined && { runLimit }),
      predicate: async (b) => {
        const res = await bootstrap(c, { ...b, humanEmail: unique(b.humanEmail) });
        c.verify(res.status === 200 || res.status === 201, 'a valid body succeeds (200 or 201)', '200 or 201', `${res.status} ${res.text.slice(0, 200)}`);
        const { apiKey, claimUrl } = res.json ?? {};
        c.verify(typeof apiKey === 'string' && /^[^_\s]+_live_\S+$/.test(apiKey), 'the reply has an apiKey of the form <prefix>_live_<secret>', '<prefix>_live_<secret>', typeof apiKey);
        c.verify(typeof claimUrl === 'string' && URL.canParse(claimUrl) && /^https?:$/.test(new URL(claimUrl).protocol), 'the reply has an absolute http(s) claimUrl', 'absolute http(s) URL', claimUrl);
        const used = await c.mcp.request('tools/list', undefined, { key: apiKey });
        c.verify(used.status === 200 && Array.isArray(finalMessage(used)?.result?.tools), 'tools/list with the new key returns the tools', 200, used.status);
        return true;
      },
    });
  });

  // "The 5xx (Server Error) class of status code indicates that the server is aware that it has erred."
  // "`humanEmail`: string, e-mail address; `agentName`: string; `workspaceName`: string; `canvasName`: string."
  check(['bootstrap-wrong-type-4xx', 'bootstrap-bad-email-4xx', 'bootstrap-missing-field-no-5xx'], 'property: a body with fields missing, of another type, or a bad address gets a 4xx, never a 5xx', async (c) => {
    const runLimit = await runsAllowed(c, 'bootstrap-spoiled-bodies', 100);
    const field = fc.constantFrom(...FIELDS);
    const spoil = fc.oneof(
      fc.record({ field, how: fc.constant('removed' as const) }),
      fc.record({ field, how: fc.constant('retyped' as const), value: NOT_A_STRING }),
      fc.record({ field: fc.constant('humanEmail' as const), how: fc.constant('not an address' as const), value: NOT_AN_ADDRESS }),
      fc.record({ field: fc.constantFrom('agentName', 'workspaceName', 'canvasName'), how: fc.constant('odd name' as const), value: fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), fc.string({ minLength: 300, maxLength: 5000, unit: 'grapheme' }), fc.constantFrom('', ' ', '\u0000', 'a\nb', '\u2028')) }),
    );
    const spoiled = fc.tuple(fc.record({ humanEmail: ADDRESS, agentName: NAME, workspaceName: NAME, canvasName: NAME }), fc.array(spoil, { minLength: 1, maxLength: 3 }))
      .map(([valid, spoils]): Spoiled => {
        const body: Body = { ...valid, humanEmail: valid.humanEmail };
        let invalid: string | undefined;
        for (const s of spoils) {
          if (s.how === 'removed') delete body[s.field];
          else body[s.field] = s.value;
          // A missing name may be defaulted (requiredness is not stated); anything else here cannot be served.
          if (s.how === 'retyped' || s.how === 'not an address' || (s.how === 'removed' && s.field === 'humanEmail')) invalid ??= `${s.field} ${s.how}`;
        }
        // A later spoil may have put a valid value back: judge the body as sent.
        if (invalid && !FIELDS.some((f) => f in body && typeof body[f] !== 'string') && typeof body.humanEmail === 'string' && /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(body.humanEmail)) invalid = undefined;
        return { body, invalid };
      });
    await c.property({
      id: 'bootstrap-spoiled-bodies',
      arbitrary: spoiled,
      maxRuns: 100,
      ...(runLimit !== undefined && { runLimit }),
      show: (s) => `${JSON.stringify(s.body).slice(0, 400)}${s.invalid ? ` (invalid: ${s.invalid})` : ''}`,
      predicate: async ({ body, invalid }) => {
        if (typeof body.humanEmail === 'string' && body.humanEmail.includes('@') && !invalid) body = { ...body, humanEmail: unique(body.humanEmail) };
        const res = await bootstrap(c, body);
        c.verify(res.status < 500, 'the reply is never a 5xx', 'below 500', res.status);
        if (invalid) c.verify(res.status >= 400 && res.status < 500, `a body with ${invalid} is refused with a 4xx`, '4xx', res.status);
        else c.verify(res.status < 300 || (res.status >= 400 && res.status < 500), 'the body is accepted or refused with a 4xx', '2xx or 4xx', res.status);
        return true;
      },
    });
  });
});
