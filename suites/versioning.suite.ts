import { describe } from 'vitest';
import { bootstrapWorkspace } from '../src/fresh-workspace.js';
import { check, type CheckContext } from '../src/check.js';
import { McpSession } from '../src/mcp-session.js';
import type { TargetInfo } from '../src/target-info.js';
import { WireClient, type WireResponse } from '../src/wire/client.js';
import type { Exchange } from '../src/wire/exchange.js';

describe('versioning', () => {
  // "The version is carried in the path: the MCP endpoint ends in `/v1`."
  check('version-v1-path', 'tools/list answers on /api/mcp/v1', async ({ mcp, verify, target }) => {
    verify(new URL(target.mcpUrl).pathname.endsWith('/v1'), 'the MCP endpoint path ends in /v1', '/api/mcp/v1', new URL(target.mcpUrl).pathname);
    const res = await mcp.request('tools/list');
    verify(res.status === 200, 'tools/list on /v1 answers 200', 200, res.status);
  });

  // "There is exactly one MCP endpoint: `{base_url}/api/mcp/v1`."
  check('version-other-paths-404', 'other API versions are not served', async ({ http, mcp, target }) => {
    for (const path of ['/api/mcp/v2', '/api/mcp/v0', '/api/mcp']) {
      const res = await http.request(`${target.baseUrl}${path}`, { method: 'POST', headers: mcp.headers(), json: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      if (res.status !== 404) throw Object.assign(new Error(`${path} answered ${res.status}, not 404`), { expected: 404, actual: res.status });
    }
  });
});

// --- rate limits ----------------------------------------------------------------------------------------
//
// "Per-plan rate limits exist" (service.md §Limits), numbers not shown. To meet a 429 the harness bursts
// tools/list with a key of its own (bootstrapped, so no other suite shares its bucket), at most
// BURST_MAX requests BURST_CONCURRENCY at a time, stopping at the first 429. The embedded target allows a
// burst of 300 at 200/s: a 429 comes after about 330 requests on an idle machine, after 600 or more when
// the harness shares the CPU with a full run (the burst must outpace the refill). No 429 within the
// bound (count or time): not testable.

const BURST_MAX = 2000;
const BURST_CONCURRENCY = 16;
const BURST_DEADLINE_MS = 15_000;
/** Longest Retry-After the harness is prepared to wait out. */
const MAX_WAIT_MS = 20_000;
/** Added to the wait: timers and clocks are not exact, and delay-seconds already round up. */
const WAIT_SLACK_MS = 50;

interface Burst {
  sent: number;
  statuses: Record<number, number>;
  elapsedMs: number;
  /** The first and the last 429 (the last one's Retry-After is the freshest), and a 200 for comparison. */
  first429?: { res: WireResponse; exchange: Exchange };
  last429?: { res: WireResponse; exchange: Exchange; receivedAt: number };
  ok?: { res: WireResponse; exchange: Exchange };
  keyNote: string;
  /** An MCP session on the burst's key writing into a check's own wire log. */
  session(c: CheckContext): McpSession;
  bootstrap: Exchange[];
}

let burstRun: Promise<Burst> | undefined;

function targetSecrets(target: TargetInfo): string[] {
  return [target.apiKey, target.otherKey, target.revokedKey].filter((k): k is string => !!k);
}


async function runBurst(target: TargetInfo): Promise<Burst> {
  const secrets = targetSecrets(target);
  const { key, exchanges: bootstrap, note } = await bootstrapWorkspace(target, secrets, 'rate-limit');
  const info: TargetInfo = { ...target, apiKey: key };
  const sessionOn = (log: Exchange[]) => new McpSession(new WireClient(log, () => secrets, target.timeoutMs, { pace: false }), info);
  const burst: Burst = { sent: 0, statuses: {}, elapsedMs: 0, keyNote: note, session: (c) => sessionOn(c.http.log), bootstrap };
  if (!key) return burst;
  const started = performance.now();
  let stop = false;
  await Promise.all(Array.from({ length: BURST_CONCURRENCY }, async () => {
    while (!stop && burst.sent < BURST_MAX && performance.now() - started < BURST_DEADLINE_MS) {
      burst.sent += 1;
      const log: Exchange[] = [];
      const res = await sessionOn(log).request('tools/list');
      burst.statuses[res.status] = (burst.statuses[res.status] ?? 0) + 1;
      if (res.status === 429) {
        stop = true;
        burst.first429 ??= { res, exchange: log[0]! };
        burst.last429 = { res, exchange: log[0]!, receivedAt: performance.now() };
      } else if (res.status === 200) burst.ok ??= { res, exchange: log[0]! };
    }
  }));
  burst.elapsedMs = Math.round(performance.now() - started);
  return burst;
}

/** The burst, its exchanges attached to the check; not testable when no 429 came. */
async function tooManyRequests(c: CheckContext): Promise<Burst & { first429: NonNullable<Burst['first429']>; last429: NonNullable<Burst['last429']> }> {
  burstRun ??= runBurst(c.target);
  const b = await burstRun;
  c.http.log.push(...b.bootstrap);
  if (b.sent === 0) c.notTestable(`no key to burst with (${b.keyNote}); bursting the run's own key would throttle the other checks`);
  const statuses = Object.entries(b.statuses).map(([s, n]) => `${n} x ${s}`).join(', ');
  c.observe(`burst with ${b.keyNote}: ${b.sent} tools/list requests, ${BURST_CONCURRENCY} at a time, in ${b.elapsedMs} ms: ${statuses}`);
  if (b.ok) c.http.log.push(b.ok.exchange);
  if (!b.first429 || !b.last429) c.notTestable(`no 429 within ${b.sent} requests in ${b.elapsedMs} ms (${statuses}): the burst did not outpace the limit, if there is one, within the harness's bound (${BURST_MAX} requests, ${BURST_DEADLINE_MS / 1000} s)`);
  c.http.log.push(b.first429!.exchange);
  if (b.last429!.exchange !== b.first429!.exchange) c.http.log.push(b.last429!.exchange);
  return b as Burst & { first429: NonNullable<Burst['first429']>; last429: NonNullable<Burst['last429']> };
}

const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** RFC 9110 §10.2.3: `Retry-After = HTTP-date / delay-seconds`; the wait it asks for, in ms from now. */
function parseRetryAfter(value: string | undefined): { ok: true; waitMs: number; form: string } | { ok: false; why: string } {
  if (value === undefined) return { ok: false, why: 'absent' };
  const v = value.trim();
  if (/^\d+$/.test(v)) return { ok: true, waitMs: Number(v) * 1000, form: 'delay-seconds' };
  if (IMF_FIXDATE.test(v) && !Number.isNaN(Date.parse(v))) return { ok: true, waitMs: Math.max(0, Date.parse(v) - Date.now()), form: 'HTTP-date' };
  return { ok: false, why: `${JSON.stringify(v)} is neither delay-seconds nor an IMF-fixdate HTTP-date` };
}

// A minimal RFC 8941 (Structured Field Values) List parser, enough to say whether the RateLimit fields of
// draft-ietf-httpapi-ratelimit-headers-11 parse; they are observed, never required.
type Bare = string | number | boolean | { token: string } | { bytes: string };
type Item = { value: Bare; params: Record<string, Bare> };

function parseSfList(input: string): Item[] {
  let i = 0;
  const s = input;
  const ws = () => {
    while (s[i] === ' ' || s[i] === '\t') i++;
  };
  const fail = (what: string): never => {
    throw new Error(`${what} at offset ${i}`);
  };
  const bare = (): Bare => {
    const ch = s[i];
    if (ch === '"') {
      let out = '';
      i++;
      while (i < s.length && s[i] !== '"') {
        if (s[i] === '\\') i++;
        out += s[i++];
      }
      if (s[i] !== '"') fail('unterminated string');
      i++;
      return out;
    }
    if (ch === '?') {
      const b = s[i + 1];
      if (b !== '0' && b !== '1') fail('bad boolean');
      i += 2;
      return b === '1';
    }
    if (ch === ':') {
      const end = s.indexOf(':', i + 1);
      if (end < 0) fail('unterminated byte sequence');
      const bytes = s.slice(i + 1, end);
      i = end + 1;
      return { bytes };
    }
    const num = /^-?\d{1,15}(\.\d{1,3})?/.exec(s.slice(i));
    if (num) {
      i += num[0].length;
      return Number(num[0]);
    }
    const tok = /^[A-Za-z*][A-Za-z0-9!#$%&'*+.^_`|~:/-]*/.exec(s.slice(i));
    if (tok) {
      i += tok[0].length;
      return { token: tok[0] };
    }
    return fail('bad item');
  };
  const params = (): Record<string, Bare> => {
    const out: Record<string, Bare> = {};
    while (s[i] === ';') {
      i++;
      ws();
      const key = /^[a-z*][a-z0-9_.*-]*/.exec(s.slice(i))?.[0] ?? fail('bad parameter key');
      i += key.length;
      if (s[i] === '=') {
        i++;
        out[key] = bare();
      } else out[key] = true;
    }
    return out;
  };
  const items: Item[] = [];
  ws();
  while (i < s.length) {
    if (s[i] === '(') fail('inner list not expected');
    items.push({ value: bare(), params: params() });
    ws();
    if (i >= s.length) break;
    if (s[i] !== ',') fail('expected ","');
    i++;
    ws();
    if (i >= s.length) fail('trailing comma');
  }
  return items;
}

const isInt = (v: Bare | undefined, min: number) => typeof v === 'number' && Number.isInteger(v) && v >= min;

/** What the RateLimit-Policy and RateLimit fields of a reply say, or why they do not parse. */
function describeRateLimitFields(res: WireResponse): string[] {
  const notes: string[] = [];
  for (const [name, required, rules] of [
    ['ratelimit-policy', 'q', (p: Record<string, Bare>) => isInt(p.q, 0) && (p.w === undefined || isInt(p.w, 1))],
    ['ratelimit', 'r', (p: Record<string, Bare>) => isInt(p.r, 0) && (p.t === undefined || isInt(p.t, 0))],
  ] as const) {
    const value = res.headers[name];
    if (value === undefined) {
      notes.push(`${name}: absent`);
      continue;
    }
    try {
      const items = parseSfList(value);
      const bad = items.filter((it) => !rules(it.params));
      notes.push(`${name}: ${JSON.stringify(value)} parses as ${items.length} item(s)${bad.length ? `, but ${bad.length} lack a valid "${required}" or carry a malformed parameter` : ''}`);
    } catch (err) {
      notes.push(`${name}: ${JSON.stringify(value)} does not parse as an RFC 8941 List (${(err as Error).message})`);
    }
  }
  return notes;
}

describe('rate limits', () => {
  // RFC 6585 §4: "The response representations SHOULD include details explaining the condition, and MAY
  // include a Retry-After header indicating how long to wait before making a new request." RFC 9110
  // §10.2.3: "Retry-After = HTTP-date / delay-seconds".
  check('rate-limit-retry-after', 'a 429 explains itself and carries Retry-After as delay-seconds or an HTTP-date', async (c) => {
    const b = await tooManyRequests(c);
    const res = b.first429.res;
    for (const note of describeRateLimitFields(res)) c.observe(`429 ${note}`);
    if (b.ok) for (const note of describeRateLimitFields(b.ok.res)) c.observe(`200 ${note}`);
    c.observe(`429 body: ${res.text.slice(0, 300)}`);
    c.verify(res.text.trim().length > 0, 'the 429 has an empty body: nothing explains the condition', 'a body explaining the limit', '');
    const parsed = parseRetryAfter(res.headers['retry-after']);
    c.verify(parsed.ok, `the 429's Retry-After is ${parsed.ok ? 'fine' : parsed.why}`, 'Retry-After: <delay-seconds> or <HTTP-date>', res.headers['retry-after'] ?? null);
  }, { rateLimit: true });

  // RFC 9110 §10.2.3: "Servers send the "Retry-After" header field to indicate how long the user agent ought
  // to wait before making a follow-up request." Waiting that long is enough: the follow-up succeeds.
  check('rate-limit-retry-after-honest', 'after waiting Retry-After, the next request is served', async (c) => {
    const b = await tooManyRequests(c);
    const value = b.last429.res.headers['retry-after'];
    const parsed = parseRetryAfter(value);
    if (!parsed.ok) c.notTestable(`the last 429's Retry-After is ${(parsed as { why: string }).why} (rate-limit-retry-after reports it)`);
    const { waitMs, form } = parsed as { waitMs: number; form: string };
    if (waitMs > MAX_WAIT_MS) c.notTestable(`Retry-After asks for ${Math.round(waitMs / 1000)} s, longer than the ${MAX_WAIT_MS / 1000} s the harness waits`);
    const limitT = /;\s*t=(\d+)/.exec(b.last429.res.headers.ratelimit ?? '')?.[1];
    if (limitT !== undefined) c.observe(`RateLimit t=${limitT} s beside Retry-After ${value} (RATE-08: Retry-After should not point earlier)`);
    const remaining = b.last429.receivedAt + waitMs + WAIT_SLACK_MS - performance.now();
    if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
    c.observe(`waited ${Math.round(waitMs)} ms (Retry-After: ${value}, ${form}) after the last 429, then sent one request`);
    const res = await b.session(c).request('tools/list');
    c.verify(res.status !== 429, `the request after waiting Retry-After (${value}) was refused again with 429${res.headers['retry-after'] ? ` (Retry-After: ${res.headers['retry-after']})` : ''}`, 'served (not 429)', res.status);
    c.verify(res.status === 200, `the request after waiting answered ${res.status}`, 200, res.status);
  }, { timeout: 60_000, rateLimit: true });
});
