import { randomBytes } from 'node:crypto';
import { runSecrets, type CheckContext, defineSuite } from '../src/engine/check.js';
import type { ProbeCheck, ProbeList } from '../src/budget/bootstrap-plan.js';
import { budgetSpentReason } from '../src/budget/run-ledger.js';
import { B64TOKEN, hasKeyForm, unusableKeyReason } from '../src/kit/key-form.js';
import { SpellingMatcher } from '../src/kit/key-spellings.js';
import { verifyHttpsUrls } from '../src/judging/handed-out-urls.js';
import { finalMessage, McpSession } from '../src/mcp/mcp-session.js';
import type { TargetInfo } from '../src/targets/target-info.js';
import { WireClient, type WireRequest, type WireResponse } from '../src/wire/client.js';
import type { Exchange } from '../src/wire/exchange.js';
import { redactInPlace } from '../src/wire/redact.js';

const { check, describe, seal } = defineSuite('bootstrap');

/**
 * `POST /api/agent/bootstrap` (service.md §Endpoints 2). Each successful bootstrap creates a workspace and
 * sends a mail, so the reply checks share ONE bootstrap (made by whichever check runs first, its key used
 * on the MCP endpoint at once); the bad-body checks send bodies a conforming server refuses, a bounded few.
 * Keys returned here are not the target's, so this suite redacts them from the evidence itself.
 */

const PATH = '/api/agent/bootstrap';
const AGENT_NAME = 'mcp-conformance-bootstrap-suite';
/** How long the claim mail may take to arrive, and how often the mailbox is read meanwhile. */
const MAIL_DEADLINE_MS = 6000;
const MAIL_POLL_MS = 100;

/** Keys learnt from bootstrap replies in this run: redacted from every record, like the target's. */
const learnt = (c: CheckContext) => c.run.once('bootstrap keys learnt', () => new Set<string>());

/** A recording client on `log` that also redacts learnt keys, and removes a key from records once it is learnt. */
class Recorder {
  readonly http: WireClient;
  readonly target: TargetInfo;
  private readonly learnt: Set<string>;
  constructor(readonly log: Exchange[], c: CheckContext) {
    this.target = c.target;
    this.learnt = learnt(c);
    this.http = c.http.sibling(log, () => runSecrets(c.target, [...this.learnt]));
  }

  async request(url: string, req: WireRequest): Promise<WireResponse> {
    try {
      const res = await this.http.request(url, req);
      const key = res.json?.apiKey;
      if (typeof key === 'string' && key.length >= 8) this.learnt.add(key);
      return res;
    } finally {
      for (const exchange of this.log) redactInPlace(exchange, [...this.learnt]);
    }
  }

  bootstrap(body: { json: unknown } | { raw: string }): Promise<WireResponse> {
    return this.request(`${this.target.baseUrl}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, ...body });
  }
}

function recorder(c: CheckContext): Recorder {
  return new Recorder(c.http.log, c);
}

function testAddress(tag: string): string {
  return `conformance+${tag}-${Date.now().toString(36)}${randomBytes(3).toString('hex')}@example.com`;
}

/** A valid body with a fresh address. */
function validBody(tag: string): { humanEmail: string; agentName: string; workspaceName: string; canvasName: string } {
  return { humanEmail: testAddress(tag), agentName: AGENT_NAME, workspaceName: `conformance bootstrap ${tag}`, canvasName: 'conformance bootstrap canvas' };
}

interface Bootstrapped {
  body: ReturnType<typeof validBody>;
  res: WireResponse;
  /** The first request made with the returned key, right after the reply. */
  firstUse?: WireResponse;
  exchanges: Exchange[];
}

/** The one valid bootstrap of this suite; its exchanges are copied into the evidence of every check that uses it. */
async function bootstrapOnce(c: CheckContext): Promise<Bootstrapped> {
  if (!c.target.canBootstrap) c.notTestable('bootstrap may not be called on this target (it creates a workspace and sends mail)');
  // The shared bootstrap, or why the run's budget left none for it.
  const shared = c.run.once('bootstrap reply', async (): Promise<Bootstrapped | string> => {
    const permit = c.run.ledger.permit('bootstrap-reply', 1);
    if (permit.granted < 1) return budgetSpentReason('the bootstrap reply checks', permit.budget);
    const exchanges: Exchange[] = [];
    const rec = new Recorder(exchanges, c);
    const body = validBody('reply');
    const res = await rec.bootstrap({ json: body });
    const key = res.json?.apiKey;
    // A key that cannot be a Bearer credential is judged by bootstrap-key-b64token, never put in a header.
    const firstUse = typeof key === 'string' && !unusableKeyReason(key) ? await new McpSession(rec.http, c.target).request('tools/list', undefined, { key }) : undefined;
    return { body, res, firstUse, exchanges };
  });
  const b = await shared;
  if (typeof b === 'string') c.notTestable(b);
  c.http.log.push(...b.exchanges);
  return b;
}

/** The key's shape without the key: letters and digits masked, separators kept. */
function shape(key: string): string {
  const masked = key.replace(/[a-z]/g, 'a').replace(/[A-Z]/g, 'A').replace(/[0-9]/g, '9');
  return masked.length > 24 ? `${masked.slice(0, 24)}… (${key.length} characters)` : masked;
}

function verifyCreated(c: CheckContext, res: WireResponse): void {
  c.verify(res.status === 200 || res.status === 201, 'the bootstrap of a valid body succeeds (200 or 201)', '200 or 201', res.status);
  c.verify(res.json !== undefined && typeof res.json === 'object', 'the reply is a JSON object', 'application/json object', res.mediaType || '(no content type)');
}

type Mail = { to?: string[]; subject?: string | null; text?: string | null; raw?: string };

/**
 * The claim mail to `humanEmail`, read once per run from the mailbox (`--mailbox-url`) and shared by the checks
 * that judge it; undefined when none arrived in time. Reads are not recorded one by one: the last is the
 * evidence, its body narrowed to this mail (the mailbox holds every mail the sink got).
 */
function claimMail(c: CheckContext, humanEmail: string): Promise<{ mail?: Mail; evidence: Exchange[] }> {
  return c.run.once(`claim mail ${humanEmail}`, async () => {
    const scratch: Exchange[] = [];
    const rec = new Recorder(scratch, c);
    const deadline = performance.now() + MAIL_DEADLINE_MS;
    let mail: Mail | undefined;
    for (let i = 0; i < MAIL_DEADLINE_MS / MAIL_POLL_MS && !mail; i++) {
      const box = await rec.request(c.target.mailboxUrl!, { method: 'GET', headers: { accept: 'application/json' } });
      const mails: Mail[] = Array.isArray(box.json) ? box.json : [];
      mail = mails.find((m) => (m.to ?? []).some((to) => to.toLowerCase() === humanEmail.toLowerCase()));
      if (mail || performance.now() > deadline) break;
      await new Promise((r) => setTimeout(r, MAIL_POLL_MS));
    }
    const last = scratch.at(-1);
    if (last) {
      if (last.response) last.response.body = mail ? JSON.stringify(mail).slice(0, 4096) : `[${scratch.length} reads of the mailbox, none with a mail to ${humanEmail}]`;
      redactInPlace(last, runSecrets(c.target, [...learnt(c)]));
    }
    return { ...(mail && { mail }), evidence: last ? [last] : [] };
  });
}

/** Where in `text` a spelling of `key` appears (src/kit/key-spellings.ts): `spelt as <form>`, or undefined. */
function keyIn(key: string, text: string | undefined): string | undefined {
  const hit = text ? new SpellingMatcher([key]).find(text)[0] : undefined;
  return hit && `spelt as ${hit.spelling.form}${hit.casing === 'as is' ? '' : `, ${hit.casing}`}`;
}

interface Probe { label: string; body: { json: unknown } | { raw: string } }

/**
 * Sends each body the check's share of the bootstrap budget covers (the first, then the rest when the budget
 * allows; src/budget/bootstrap-plan.ts). A 429 is waited out by the wire client; one that outlasts the
 * run's wait budget fails the check as throttled.
 */
async function probe<Check extends ProbeCheck>(c: CheckContext, id: Check, probes: ProbeList<Check, Probe>): Promise<{ label: string; res: WireResponse }[]> {
  if (!c.target.canBootstrap) c.notTestable('bootstrap may not be called on this target (a lax server would create workspaces and send mail)');
  const first = c.run.ledger.permit(`probe:${id}`, 1);
  if (first.granted < 1) c.notTestable(budgetSpentReason(id, first.budget));
  const more = c.run.ledger.permit(`probe-more:${id}`, probes.length - 1);
  const sent = probes.slice(0, 1 + more.granted);
  if (sent.length < probes.length) c.observe(`${sent.length} of ${probes.length} bodies sent: the rest are beyond the run's bootstrap budget (${first.budget}, --bootstrap-budget)`);
  const rec = recorder(c);
  const results = await Promise.all(sent.map(async (p) => ({ label: p.label, res: await rec.bootstrap(p.body) })));
  for (const r of results) if (r.res.status >= 400 && r.res.mediaType !== 'application/json' && !r.res.mediaType.endsWith('+json')) c.observe(`${r.label}: ${r.res.status} with ${r.res.mediaType || 'no content type'}, not a JSON error`);
  return results;
}

/**
 * The replies to one check's bodies, shared by id with the other checks that judge them: the first caller
 * sends them (probe), the others read the same replies and get the same exchanges as evidence. A 4xx check
 * and its no-5xx check thus judge one set of requests at their two levels.
 */
async function sharedProbe<Check extends ProbeCheck>(c: CheckContext, id: Check, probes: () => ProbeList<Check, Probe>): Promise<{ label: string; res: WireResponse }[]> {
  const probed = c.run.once('bootstrap probes', () => new Map<string, { results: Promise<{ label: string; res: WireResponse }[]>; exchanges: Promise<Exchange[]> }>());
  const known = probed.get(id);
  if (known) {
    const results = await known.results; // a first caller's not testable is this check's too
    c.http.log.push(...await known.exchanges);
    return results;
  }
  const from = c.http.log.length;
  const results = probe(c, id, probes());
  const sent = () => c.http.log.slice(from);
  probed.set(id, { results, exchanges: results.then(sent, sent) });
  return results;
}

/** `humanEmail`, `agentName`, `workspaceName` or `canvasName` of another type than string. */
function wrongTypeProbes(): ProbeList<'bootstrap-wrong-type-4xx', Probe> {
  const typed = (field: string, value: unknown): Probe => ({ label: `${field} = ${JSON.stringify(value)}`, body: { json: { ...validBody('types'), [field]: value } } });
  return [
    typed('humanEmail', 42),
    typed('humanEmail', [testAddress('array')]),
    typed('agentName', 42),
    typed('workspaceName', true),
    typed('canvasName', { name: 'canvas' }),
  ];
}

/** A `humanEmail` that is not an e-mail address. */
function badEmailProbes(): ProbeList<'bootstrap-bad-email-4xx', Probe> {
  return eachOf(['not-an-email', 'missing-at.example.com', '@example.com', 'two@@example.com'] as const, (humanEmail) => ({
    label: `humanEmail "${humanEmail}"`, body: { json: { ...validBody('bad-email'), humanEmail } },
  }));
}

/** `items.map(f)` that keeps the list's length in its type (a ProbeList's length is checked). */
function eachOf<const Items extends readonly unknown[], U>(items: Items, f: (item: Items[number]) => U): { -readonly [I in keyof Items]: U } {
  return items.map(f) as { -readonly [I in keyof Items]: U };
}

function expect4xx(c: CheckContext, results: { label: string; res: WireResponse }[]): void {
  const wrong = results.filter((r) => r.res.status < 400 || r.res.status >= 500).map((r) => `${r.label}: ${r.res.status}`);
  c.verify(wrong.length === 0, `each body is refused with a 4xx (${wrong.join('; ')})`, '4xx', wrong);
}

describe.concurrent('bootstrap', () => {
  // "Response: includes `apiKey` (a temporary MCP key, returned immediately) and `claimUrl` (a link for the human)."
  // "The key has the form `<KEY_PREFIX>_live_<secret>`."
  check({ ids: 'bootstrap-returns-key', name: 'a valid body gets an apiKey of the form <prefix>_live_<secret>', run: async (c) => {
    const { res } = await bootstrapOnce(c);
    verifyCreated(c, res);
    const key = res.json.apiKey;
    c.verify(typeof key === 'string' && key.length > 0, 'the reply has an apiKey string', 'string', typeof key);
    // The prefix may hold any character (`acme_sk`): the form is checked with src/kit/key-form.ts, never by splitting at `_`.
    const prefix = c.target.keyPrefix;
    // Characters outside b64token (a trailing newline) are bootstrap-key-b64token's to judge, once: the form is judged around them.
    const unusable = unusableKeyReason(key);
    if (unusable) c.observe(`${unusable}: the form is judged on the key without surrounding white space`);
    c.verify(hasKeyForm(unusable ? key.trim() : key, prefix), `the key has the form ${prefix ?? '<KEY_PREFIX>'}_live_<secret>`, `${prefix ?? '<KEY_PREFIX>'}_live_<secret>`, shape(key));
  } });

  // "b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=""
  check({ ids: 'bootstrap-key-b64token', name: 'the apiKey fits RFC 6750 b64token, so it can be sent as a Bearer credential', run: async (c) => {
    const { res } = await bootstrapOnce(c);
    verifyCreated(c, res);
    const key = res.json.apiKey;
    c.verify(typeof key === 'string', 'the reply has an apiKey string', 'string', typeof key);
    c.verify(B64TOKEN.test(key), 'the key matches [A-Za-z0-9._~+/-]+=*', 'b64token', shape(key));
  } });

  // "Response: includes ... `claimUrl` (a link for the human)." — "The agent passes `claimUrl` to the human."
  check({ ids: 'bootstrap-returns-claim-url', name: 'a valid body gets a claimUrl that is an absolute http(s) URL', run: async (c) => {
    const { res } = await bootstrapOnce(c);
    verifyCreated(c, res);
    const claimUrl = res.json.claimUrl;
    c.verify(typeof claimUrl === 'string' && claimUrl.length > 0, 'the reply has a claimUrl string', 'string', typeof claimUrl);
    let url: URL | undefined;
    try {
      url = new URL(claimUrl);
    } catch {
      url = undefined;
    }
    c.verify(!!url && (url.protocol === 'https:' || url.protocol === 'http:'), 'claimUrl is an absolute http(s) URL a human can open', 'absolute http(s) URL', claimUrl);
    if (url!.protocol !== 'https:') c.observe(`claimUrl uses ${url!.protocol} (a deployment serves it over https)`);
    // A claimUrl holding the key is a failure of auth-key-never-echoed (the check "the key is shown once" below).
  } });

  // "No Authorization header is sent." — "Bootstrap (no auth) yields a temporary key (`apiKey`) usable the same way."
  check({ ids: 'bootstrap-no-auth', name: 'bootstrap without an Authorization header is served, not challenged', run: async (c) => {
    const { res, exchanges } = await bootstrapOnce(c);
    const sent = exchanges.find((e) => e.request.url.endsWith(PATH));
    c.verify(!!sent && !('authorization' in sent.request.headers), 'the request carried no Authorization header', 'no Authorization', sent?.request.headers);
    c.verify(res.status !== 401 && res.status !== 403, 'the request is not refused for want of credentials', 'not 401/403', res.status);
    verifyCreated(c, res);
    c.verify(typeof res.json.apiKey === 'string', 'the reply holds a key', 'apiKey', Object.keys(res.json));
  } });

  // "The agent connects to the MCP endpoint with the returned `apiKey`" — "a temporary MCP key, returned immediately".
  check({ ids: 'bootstrap-key-works', name: 'the returned key works on the MCP endpoint at once', run: async (c) => {
    const { res, firstUse } = await bootstrapOnce(c);
    verifyCreated(c, res);
    if (typeof res.json?.apiKey === 'string' && unusableKeyReason(res.json.apiKey)) c.notTestable(unusableKeyReason(res.json.apiKey)!);
    c.verify(!!firstUse, 'the reply has a key to use', 'apiKey', Object.keys(res.json));
    c.verify(firstUse!.status === 200, 'tools/list with the new key, sent right after the reply, is accepted', 200, firstUse!.status);
    const tools = finalMessage(firstUse!)?.result?.tools;
    c.verify(Array.isArray(tools), 'tools/list with the new key returns the tools', 'result.tools', finalMessage(firstUse!) ?? firstUse!.text.slice(0, 200));
  } });

  // "The service also emails a claim link to the human." (A body without `humanEmail` cannot be served.)
  check({ ids: 'bootstrap-missing-email-4xx', name: 'a body without humanEmail is refused with a 4xx', run: async (c) => {
    const { humanEmail: _, ...rest } = validBody('no-email');
    expect4xx(c, await probe(c, 'bootstrap-missing-email-4xx', [
      { label: 'humanEmail left out', body: { json: rest } },
      { label: 'empty object', body: { json: {} } },
    ]));
  } });

  // "The 5xx (Server Error) class of status code indicates that the server is aware that it has erred" — the
  // requiredness of the other fields is not stated, so they may be accepted or refused, never answered 5xx.
  check({ ids: 'bootstrap-missing-field-no-5xx', name: 'a body missing agentName, workspaceName or canvasName never gets a 5xx', run: async (c) => {
    const results = await probe(c, 'bootstrap-missing-field-no-5xx', eachOf(['agentName', 'workspaceName', 'canvasName'] as const, (field) => {
      const body: Record<string, unknown> = validBody(`no-${field}`);
      delete body[field];
      return { label: `${field} left out`, body: { json: body } };
    }));
    for (const r of results) c.observe(`${r.label}: HTTP ${r.res.status}`);
    const failed = results.filter((r) => r.res.status >= 500 || r.res.status < 200).map((r) => `${r.label}: ${r.res.status}`);
    c.verify(failed.length === 0, `no missing field causes a server error (${failed.join('; ')})`, '2xx or 4xx', failed);
  } });

  // "`humanEmail`: string, e-mail address; `agentName`: string; `workspaceName`: string; `canvasName`: string."
  // A SHOULD: no sentence demands the refusal (the row's levelReason); a 5xx is bootstrap-bad-field-no-5xx's.
  check({ ids: 'bootstrap-wrong-type-4xx', name: 'fields of the wrong type are refused with a 4xx', run: async (c) => {
    expect4xx(c, await sharedProbe(c, 'bootstrap-wrong-type-4xx', wrongTypeProbes));
  } });

  // "`humanEmail`: string, e-mail address. Address of the human who receives the claim link." (A SHOULD, as above.)
  check({ ids: 'bootstrap-bad-email-4xx', name: 'a humanEmail that is not an e-mail address is refused with a 4xx', run: async (c) => {
    expect4xx(c, await sharedProbe(c, 'bootstrap-bad-email-4xx', badEmailProbes));
  } });

  // "The 5xx (Server Error) class of status code indicates that the server is aware that it has erred" — a wrong
  // type or a bad address is the client's error: accepted or refused, never a 5xx. The same requests as the two
  // checks above, judged at MUST.
  check({ ids: 'bootstrap-bad-field-no-5xx', name: 'a field of another type, or a humanEmail that is not an address, never gets a 5xx', run: async (c) => {
    const results = [...await sharedProbe(c, 'bootstrap-wrong-type-4xx', wrongTypeProbes), ...await sharedProbe(c, 'bootstrap-bad-email-4xx', badEmailProbes)];
    for (const r of results) c.observe(`${r.label}: HTTP ${r.res.status}`);
    const failed = results.filter((r) => r.res.status >= 500 || r.res.status < 200).map((r) => `${r.label}: ${r.res.status}`);
    c.verify(failed.length === 0, `no such body causes a server error (${failed.join('; ')})`, '2xx or 4xx', failed);
  } });

  // "Request headers: `Content-Type: application/json`" — a body that is not a JSON object is a client error.
  check({ ids: 'bootstrap-malformed-body-4xx', name: 'bodies that are not JSON, or not a JSON object, are refused with a 4xx', run: async (c) => {
    expect4xx(c, await probe(c, 'bootstrap-malformed-body-4xx', [
      { label: 'truncated JSON', body: { raw: '{"humanEmail": "a@example.com", ' } },
      { label: 'not JSON at all', body: { raw: 'humanEmail=a@example.com' } },
      { label: 'empty body', body: { raw: '' } },
      { label: 'a JSON array', body: { raw: `[${JSON.stringify(validBody('array'))}]` } },
      { label: 'a JSON string', body: { raw: '"hello"' } },
      { label: 'JSON null', body: { raw: 'null' } },
    ]));
  } });

  // "The origin server MUST generate an Allow header field in a 405 response containing a list of the target
  // resource's currently supported methods." The sentence governs what a 405 carries, not whether GET gets one.
  check({ ids: 'bootstrap-get-405', name: 'a 405 to GET on the bootstrap endpoint carries Allow naming POST', run: async (c) => {
    const res = await recorder(c).request(`${c.target.baseUrl}${PATH}`, { method: 'GET', headers: { accept: 'application/json' } });
    c.observe(`GET ${PATH}: HTTP ${res.status}`);
    if (res.status !== 405) c.notApplicable(`GET on the bootstrap endpoint got ${res.status}, not a 405: the sentence governs only what a 405 carries`);
    const allow = (res.headers.allow ?? '').split(',').map((m) => m.trim().toUpperCase()).filter(Boolean);
    c.verify(allow.includes('POST'), 'the 405 carries Allow naming POST', 'Allow: POST', res.headers.allow ?? '(no Allow header)');
  } });

  // "The agent passes `claimUrl` to the human; the service also emails a claim link to the human."
  // "Claim link: Returned by bootstrap as `claimUrl`. It is also emailed to the human."
  check({ ids: 'bootstrap-claim-mail', name: 'the human receives a mail holding the returned claimUrl', run: async (c) => {
    if (c.target.canBootstrap && !c.target.mailboxUrl) c.notTestable('no mailbox to read the claim mail from (give --mailbox-url of an SMTP sink the target mails to)');
    const { body, res } = await bootstrapOnce(c);
    verifyCreated(c, res);
    const claimUrl = res.json.claimUrl;
    c.verify(typeof claimUrl === 'string', 'the reply has a claimUrl to look for', 'string', typeof claimUrl);
    const { mail, evidence } = await claimMail(c, body.humanEmail);
    c.http.log.push(...evidence);
    c.verify(!!mail, `a mail to the humanEmail arrives within ${MAIL_DEADLINE_MS / 1000} s`, body.humanEmail, 'no mail');
    const text = `${mail!.text ?? ''}\n${mail!.raw ?? ''}`;
    const links = [...new Set(text.match(/https?:\/\/[^\s<>"')\]]+/g) ?? [])].slice(0, 5);
    c.verify(text.includes(claimUrl), 'the mail holds the claimUrl the agent was given', claimUrl, links);
    // The key in the mail is a failure of auth-key-never-echoed (the check "the key is shown once" below).
  } });

  // "The plaintext key is displayed once; the service stores only a hash. There is no way to show it again."
  // The minting reply displays it in its `apiKey` member, and nowhere else: not in the claimUrl (a link for the
  // human, also mailed), another member or a header of that reply, nor the claim mail. The run-wide half of the
  // row (src/judging/key-echoes.ts) judges every other reply.
  check({ ids: 'auth-key-never-echoed', name: 'the key is shown once: in the bootstrap reply\'s apiKey, never its claimUrl or another link, its headers or the claim mail', run: async (c) => {
    const { body, res } = await bootstrapOnce(c);
    const key = res.json?.apiKey;
    // A refused bootstrap, or a reply without a key, displays none: the bootstrap rows judge the reply itself.
    if ((res.status !== 200 && res.status !== 201) || typeof key !== 'string' || key.length < 8) c.notTestable(`the bootstrap answered ${res.status} without a key: no minting reply to look through`);
    const rest = res.json as Record<string, unknown>;
    const found: string[] = [];
    const look = (where: string, text: string | undefined) => {
      const hit = keyIn(key, text);
      if (hit) found.push(`${where}: the key, ${hit}`);
    };
    // The reply is the one display (its parts beside apiKey are that display too); a link it hands on is not.
    for (const [member, value] of Object.entries(rest)) if (typeof value === 'string' && /^https?:\/\//i.test(value)) look(`the reply's ${member}`, value);
    for (const [name, value] of Object.entries(res.headers)) look(`header ${name}`, `${name}: ${value}`);
    if (c.target.mailboxUrl) {
      const { mail, evidence } = await claimMail(c, body.humanEmail);
      c.http.log.push(...evidence);
      if (mail) look('the claim mail', `${mail.subject ?? ''}\n${mail.text ?? ''}\n${mail.raw ?? ''}`);
      else c.observe('no claim mail arrived to look through (bootstrap-claim-mail judges its delivery)');
    } else c.observe('no mailbox to read the claim mail from (give --mailbox-url): only the reply is looked through');
    c.verify(found.length === 0, `the key appears beyond the reply's apiKey member (${found.join('; ')})`, 'the key only in apiKey', found);
  } });

  // "Workspace: Container that a key is scoped to. It has a name (`workspaceName` at bootstrap)." — "`workspaceName`:
  // Name of the workspace to create." Each bootstrap creates a workspace of its own, with its own key and claim link:
  // the preparation's bootstraps (keys A and B) and this suite's are compared, at no extra cost to the budget.
  check({ ids: 'bootstrap-fresh-workspace', name: 'every bootstrap gives a key and a claim link of its own (no reply is handed out twice)', run: async (c) => {
    const earlier = c.target.bootstrapped ?? [];
    const { res } = await bootstrapOnce(c);
    const replies = [...earlier.map((r) => ({ label: `the preparation's bootstrap ${r.label}`, apiKey: r.apiKey, claimUrl: r.claimUrl })),
      ...(typeof res.json?.apiKey === 'string' ? [{ label: 'this suite\'s bootstrap', apiKey: res.json.apiKey as string, claimUrl: typeof res.json.claimUrl === 'string' ? res.json.claimUrl as string : undefined }] : [])];
    if (replies.length < 2) c.notTestable(`${replies.length} bootstrap reply with a key in this run: two are needed to compare`);
    c.observe(`${replies.length} bootstrap replies compared: ${replies.map((r) => r.label).join(', ')}`);
    const same = (field: 'apiKey' | 'claimUrl', what: string) => {
      const seen = new Map<string, string>();
      const twice: string[] = [];
      for (const r of replies) {
        const v = r[field];
        if (!v) continue;
        const first = seen.get(v);
        if (first) twice.push(`${r.label} gave the same ${what} as ${first}`);
        else seen.set(v, r.label);
      }
      return twice;
    };
    const keys = same('apiKey', 'key');
    c.verify(keys.length === 0, `each bootstrap creates a workspace of its own with its own key (${keys.join('; ')})`, 'a new key per bootstrap', keys);
    const links = same('claimUrl', 'claimUrl');
    c.verify(links.length === 0, `each bootstrap hands out a claim link of its own (${links.join('; ')})`, 'a new claimUrl per bootstrap', links);
  } });

  // "The agent passes `claimUrl` to the human." (A link for a human resolves: GET answers below 400.)
  check({ ids: 'bootstrap-claim-url-resolves', name: 'GET on the claimUrl answers below 400', run: async (c) => {
    const { res } = await bootstrapOnce(c);
    verifyCreated(c, res);
    const claimUrl = res.json.claimUrl;
    let url: URL | undefined;
    try {
      url = new URL(claimUrl);
    } catch {
      url = undefined;
    }
    c.verify(!!url, 'the reply has an absolute claimUrl', 'absolute URL', claimUrl);
    if (url!.origin !== new URL(c.target.baseUrl).origin) c.notTestable(`the claim link is on ${url!.origin}, not the target's host; the harness sends traffic only to the target`);
    const page = await recorder(c).request(url!.href, { method: 'GET', headers: { accept: 'text/html, application/json;q=0.9' } });
    c.verify(page.status < 400, 'the claim link resolves', '< 400', page.status);
  } });

  // "Transport is HTTPS carrying JSON-RPC 2.0." (service.md) The claim link is the service's own URL. The
  // rule is on the URLs handed out: a refused bootstrap, or a reply without claimUrl, hands out none (the
  // rows above judge that), and leaves this check nothing to judge.
  check({ ids: 'wire-https-urls', name: 'the claimUrl is https when the service is reached over https', run: async (c) => {
    const { res } = await bootstrapOnce(c);
    const claimUrl = res.json?.claimUrl;
    if ((res.status !== 200 && res.status !== 201) || typeof claimUrl !== 'string') {
      c.observe(`the bootstrap answered ${res.status} ${typeof claimUrl === 'string' ? 'with' : 'without'} a claimUrl: no URL handed out to judge (bootstrap-returns-claim-url judges the reply)`);
      return;
    }
    verifyHttpsUrls(c, [{ where: 'claimUrl', url: claimUrl }], 'the claimUrl');
  } });
});

export default seal();
