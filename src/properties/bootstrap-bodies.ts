import type { BootstrapProperty } from '../budget/bootstrap-plan.js';
import fc from 'fast-check';
import { anyCodePoint } from './code-points.js';
import { budgetSpentReason } from '../budget/run-ledger.js';
import type { CheckContext } from '../engine/check.js';
import type { WireResponse } from '../wire/client.js';

/**
 * Bootstrap bodies as the bootstrap properties (suites/properties/bootstrap.suite.ts) generate them, valid or
 * spoiled, and how they are sent: POSTed to the bootstrap endpoint (a returned key becomes a secret of the
 * check), each property within its share of the run's bootstrap budget.
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

export type Body = Record<string, unknown>;
/** How a body was spoiled, for the verdict: a body spoiled this way is certainly invalid. */
export interface Spoiled { body: Body; invalid: string | undefined }

let uniq = 0;
/** The address made unique to this run (a tag before the @). */
export function unique(address: string): string {
  const at = address.lastIndexOf('@');
  return `${address.slice(0, at)}.p${(uniq++).toString(36)}${address.slice(at)}`.replace(/^\.+/, '');
}

/** Valid bodies: any names, odd but valid addresses, extra members. */
export const validBodyArb = fc.record({ humanEmail: ADDRESS, agentName: NAME, workspaceName: NAME, canvasName: NAME, extra: EXTRA })
  .map(({ extra, ...fields }) => ({ ...extra, ...fields }));

const field = fc.constantFrom(...FIELDS);
/** One way to spoil a body: a field removed, retyped, an address that is not one, an odd name. */
const spoil = fc.oneof(
  fc.record({ field, how: fc.constant('removed' as const) }),
  fc.record({ field, how: fc.constant('retyped' as const), value: NOT_A_STRING }),
  fc.record({ field: fc.constant('humanEmail' as const), how: fc.constant('not an address' as const), value: NOT_AN_ADDRESS }),
  fc.record({ field: fc.constantFrom('agentName', 'workspaceName', 'canvasName'), how: fc.constant('odd name' as const), value: fc.oneof(fc.string({ unit: anyCodePoint, maxLength: 30 }), fc.string({ minLength: 300, maxLength: 5000, unit: 'grapheme' }), fc.constantFrom('', ' ', '\u0000', 'a\nb', '\u2028')) }),
);
/** Bodies spoiled one to three times, and whether that makes them certainly invalid. */
export const spoiledBodyArb: fc.Arbitrary<Spoiled> = fc.tuple(fc.record({ humanEmail: ADDRESS, agentName: NAME, workspaceName: NAME, canvasName: NAME }), fc.array(spoil, { minLength: 1, maxLength: 3 }))
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

/** A spoiled body as sent, for counterexamples. */
export function showSpoiled(s: Spoiled): string {
  return `${JSON.stringify(s.body).slice(0, 400)}${s.invalid ? ` (invalid: ${s.invalid})` : ''}`;
}

/** POSTs a body to the bootstrap endpoint; a key in the reply becomes a secret of the check. */
export async function bootstrap(c: CheckContext, body: Body | string): Promise<WireResponse> {
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
export async function runsAllowed(c: CheckContext, id: BootstrapProperty, wants: number): Promise<number | undefined> {
  if (!c.target.canBootstrap) c.notTestable('bootstrap may not be called on this target (it creates a workspace and sends mail)');
  const permit = c.run.ledger.permit(`property:${id}`, wants);
  if (permit.granted < 1) c.notTestable(budgetSpentReason(`property ${id}`, permit.budget));
  if (permit.budget === undefined) return undefined;
  c.observe(`${permit.granted} run(s), not shrunk on failure: the property's share of the run's bootstrap budget (${permit.budget}, --bootstrap-budget)`);
  return permit.granted;
}
