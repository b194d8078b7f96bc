import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeEach, describe, expect, it } from 'vitest';
import { base64Cores, keyParts, matcherFor, SpellingMatcher, spellingsOf } from '../../src/kit/key-spellings.js';
import { inNewScope } from '../../src/kit/run-scope.js';
import { aliasOf, redact, Secrets } from '../../src/kit/scrub.js';
import { keyEchoRecord } from '../../src/judging/key-echoes.js';
import { KeyLedger, type InspectedReply } from '../../src/wire/key-sightings.js';
import { RunState } from '../../src/engine/run-state.js';
import { WireClient } from '../../src/wire/client.js';
import type { Exchange } from '../../src/wire/exchange.js';
import { keyLeaks, keySpellings } from '../helpers/key-leaks.js';

/*
 * One derivation of a secret's spellings (src/kit/key-spellings.ts), used by the scrubber to redact and by the
 * key sightings to detect. The spellings a test looks for are derived on their own (test/helpers/key-leaks.ts).
 */

const secretOf = (n = 40) => randomBytes(n).toString('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, n);
/** A prefix with `_` in it: the separator is found, the key is never split on its first `_`. */
const KEY = `acme_sk_live_${secretOf()}`;
const SECRET = KEY.slice('acme_sk_live_'.length);

/** Text holding every spelling of `key`, as is, upper-cased and lower-cased, each between words. */
function everySpelling(key: string): string {
  return keySpellings(key).flatMap(([, s]) => [s, s.toUpperCase(), s.toLowerCase()]).map((s, i) => `w${i} ${s} .`).join('\n');
}

describe('a key\'s spellings', () => {
  it('splits a key at its first _live_, whatever the prefix holds', () => {
    expect(keyParts(KEY)).toEqual({ prefix: 'acme_sk', secret: SECRET });
    expect(keyParts('cnv_live_abc_live_def')).toEqual({ prefix: 'cnv', secret: 'abc_live_def' });
    expect(keyParts('no-separator-here')).toBeUndefined();
    expect(keyParts('cnv_live_')).toBeUndefined();
  });

  it('base64 cores cover the value\'s base64 at every alignment, inside any longer base64 text', () => {
    const value = Buffer.from(SECRET);
    const cores = base64Cores(value);
    for (const before of ['', 'a', 'ab', 'abc', 'user:', ':', 'x'.repeat(17)]) {
      for (const after of ['', ':', 'z', 'zz']) {
        const encoded = Buffer.from(`${before}${SECRET}${after}`).toString('base64');
        expect(cores.some((c) => encoded.includes(c)), JSON.stringify({ before, after })).toBe(true);
      }
    }
    // Each core depends on the value alone: long enough never to occur by chance.
    for (const c of cores) expect(c.length).toBeGreaterThanOrEqual(Math.floor((value.length * 8) / 6) - 3);
  });

  it('the scrubber leaves none of the spellings the tests look for, in any case, and redacts each', () => {
    const text = everySpelling(KEY);
    expect(keyLeaks(text, [KEY]).length).toBeGreaterThan(20); // the check can fail: the text holds them all
    const scrubbed = new Secrets([KEY]).scrub(text);
    expect(keyLeaks(scrubbed, [KEY])).toEqual([]);
    // Every spelling becomes the key's one alias for the run (src/kit/scrub.ts), so repeats stay visible.
    expect(scrubbed.split(aliasOf(KEY)).length - 1).toBeGreaterThanOrEqual(keySpellings(KEY).length * 3);
    // The wire client's redaction is the same derivation.
    expect(keyLeaks(redact(text, [KEY]), [KEY])).toEqual([]);
  });

  it('the secret part alone, and a key of any other form (no _live_) in every spelling, go too', () => {
    const token = `tok-${secretOf(24)}`;
    const text = `${everySpelling(token)}\nbare ${SECRET} and ${SECRET.toLowerCase()}`;
    const scrubbed = new Secrets([KEY, token]).scrub(text);
    expect(keyLeaks(scrubbed, [token])).toEqual([]);
    expect(scrubbed).not.toContain(SECRET);
    expect(scrubbed.toLowerCase()).not.toContain(SECRET.toLowerCase());
  });

  it('names each spelling it finds, and its case, without the key', () => {
    const m = new SpellingMatcher([KEY]);
    const found = (text: string) => m.find(text).map((x) => `${x.spelling.form}${x.casing === 'as is' ? '' : `, ${x.casing}`}`);
    expect(found(`got ${KEY.toUpperCase()}`)).toEqual(['the whole key, upper-cased']);
    expect(found(`x-digest: ${Buffer.from(KEY).toString('base64')}`)).toEqual(['base64 of its secret part']);
    // base64url and base64 agree where neither + nor / occurs: one spelling then, named as base64.
    expect(found(`Basic ${Buffer.from(`:${KEY}`).toString('base64url')}`)).toEqual([expect.stringMatching(/^base64(url)? of its secret part$/)]);
    expect(found(`{"secret":"${SECRET}"}`)).toEqual(['its secret part']);
    for (const s of spellingsOf(KEY)) expect(s.form).not.toContain(SECRET);
  });

  // Long spellings are looked for at every 16th position only: each must still be found at any offset, at the
  // text's very start and end, beside a short secret matched as a whole token, and its overlaps resolved as before.
  it('finds a long spelling at every offset of a text, up to its edges, beside short ones', () => {
    const m = new SpellingMatcher([KEY, 'Zq7']);
    for (let offset = 0; offset < 40; offset++) {
      const pad = 'x'.repeat(offset);
      for (const text of [`${pad}${KEY}`, `${pad}${KEY}${pad}`, `${pad} ${SECRET.toUpperCase()} Zq7 ${pad}`]) {
        const found = m.find(text);
        expect(found.map((f) => f.spelling.form), `offset ${offset} in ${text}`).toEqual(
          text.includes(KEY) ? ['the whole key'] : ['its secret part', 'the whole value']);
        expect(found[0]!.index).toBe(text.toLowerCase().indexOf(text.includes(KEY) ? KEY.toLowerCase() : SECRET.toLowerCase()));
      }
    }
    // A spelling cut short by the text's end is not one.
    expect(m.find(KEY.slice(0, -1))).toEqual([]);
    // The shortest spelling looked for that way (23 characters), ending the text at every alignment.
    const token = secretOf(23);
    const short = new SpellingMatcher([token]);
    for (let offset = 0; offset < 40; offset++) {
      expect(short.find(`${'y'.repeat(offset)}${token}`).map((f) => f.index), `offset ${offset}`).toEqual([offset]);
    }
  });

  // A run's matchers share their secrets' spellings (derived once per secret): each still names its own owners.
  it('among thousands of keys finds each one, owned by its place in that matcher\'s list', () => {
    const keys = Array.from({ length: 2000 }, () => `cnv_live_${secretOf(24)}`);
    const forward = new SpellingMatcher(keys);
    const backward = new SpellingMatcher([...keys].reverse());
    for (const i of [0, 1, 999, 1999]) {
      const text = `echo ${Buffer.from(keys[i]!).toString('base64')} and ${keys[i]!.toLowerCase()}`;
      expect(forward.find(text).map((x) => x.owner)).toEqual([i, i]);
      expect(backward.find(text).map((x) => x.owner)).toEqual([1999 - i, 1999 - i]);
    }
    expect(forward.find(`none of them: ${secretOf(4000)}`)).toEqual([]);
  });
});

describe('header values are secrets whatever their length', () => {
  const secrets = Secrets.from({ headers: { 'x-flag': '1', 'x-short': 'Zq7', 'x-api-key': 'hdrSecret-7Qw9zX2kLm4' } });

  it('a 1-3 character value is redacted by exact value wherever it stands as a token: as an echo quotes it', () => {
    const echoes = 'headers x-flag=1 | x-short=Zq7; {"x-short":"Zq7","x-flag":"1"} --header \'X-Short: Zq7\' key zq7. (ZQ7)';
    const out = secrets.scrub(echoes);
    const [flag, short] = [aliasOf('1'), aliasOf('Zq7')];
    expect(out).toBe(`headers x-flag=${flag} | x-short=${short}; {"x-short":"${short}","x-flag":"${flag}"} --header 'X-Short: ${short}' key ${short}. (${short})`);
  });

  it('a URL\'s password is a secret whatever its length; its user only when it stands alone (a token, not a name)', () => {
    const urls = Secrets.from({ urls: ['https://admin:pw1@h.example/x', 'https://tok3n@h2.example/'] });
    expect(urls.scrub('workspace admin; pw1; tok3n')).toBe(`workspace admin; ${aliasOf('pw1')}; ${aliasOf('tok3n')}`);
  });

  it('but never inside a longer word, number or version: a substring match would shred them', () => {
    const prose = 'HTTP/1.1 took 10 ms on v1, revision 2025-06-18, 1.5 s, abcZq7d, Zq7x, a-1';
    expect(secrets.scrub(prose)).toBe(prose);
  });
});

describe('the key ledger: keys learnt from replies, and replies that carried one', () => {
  const base = 'http://127.0.0.1:4999';
  const other = `cnv_live_${secretOf()}`;
  let keys = new KeyLedger();
  const reply = (over: Partial<InspectedReply>) => keys.inspect({ url: `${base}/api/mcp/v1`, request: 'POST /api/mcp/v1', status: 200, headers: {}, body: '{}', ...over });
  beforeEach(() => {
    keys = new KeyLedger();
    keys.configure({ baseUrl: base, mcpUrl: `${base}/api/mcp/v1`, apiKey: KEY });
  });

  it('learns a bootstrap reply\'s apiKey (redacted from then on), and judges the links that reply hands on', () => {
    const minted = keys.learnFromReply(`${base}/api/agent/bootstrap`, 'POST', 201, { apiKey: other });
    expect(minted).toEqual([other]);
    expect(keys.redaction()).toContain(other);
    expect(reply({ url: `${base}/api/agent/bootstrap`, body: JSON.stringify({ apiKey: other, claimUrl: `${base}/claim/abc` }), minted })).toBeUndefined();
    // "The plaintext key is displayed once": in the reply (its parts too); a claimUrl (mailed to the human too) holding it shows it again.
    expect(reply({ url: `${base}/api/agent/bootstrap`, body: JSON.stringify({ apiKey: other, claimUrl: `${base}/claim?key=${other}` }), minted })?.found).toEqual(['a link in the body: a key the run bootstrapped, spelt as the whole key']);
    expect(reply({ url: `${base}/api/agent/bootstrap`, body: JSON.stringify({ apiKey: other, secret: other.slice(9) }), minted })).toBeUndefined();
    const leak = reply({ url: `${base}/api/agent/bootstrap`, body: JSON.stringify({ apiKey: other, previous: KEY }), minted });
    expect(leak?.found).toEqual(['the body: the run\'s key, spelt as the whole key']);
    // Not a bootstrap, or not a success: nothing is learnt.
    expect(keys.learnFromReply(`${base}/api/mcp/v1`, 'POST', 200, { apiKey: 'x_live_y' })).toEqual([]);
    expect(keys.learnFromReply(`${base}/api/agent/bootstrap`, 'POST', 400, { apiKey: 'x_live_y' })).toEqual([]);
  });

  it('finds a key in headers, events and bodies, in any spelling; not what the request sent, not off the target', () => {
    keys.learnKey(other, 'a key the run bootstrapped');
    expect(reply({ headers: { 'x-echo': Buffer.from(`${other}:`).toString('base64') } })?.found).toEqual(['header x-echo: a key the run bootstrapped, spelt as base64 of its secret part']);
    expect(reply({ status: 429, body: `slow down, ${encodeURIComponent(KEY.toLowerCase())}` })?.found).toEqual(['the body: the run\'s key, spelt as the whole key, lower-cased']);
    expect(reply({ events: [{ data: '{}' }, { data: `{"message":"${SECRET}"}` }] })?.found).toEqual(['SSE event 2: the run\'s key, spelt as its secret part']);
    expect(reply({ body: `{"arguments":{"title":"${KEY}"}}`, requestBody: `{"title":"${KEY}"}` })).toBeUndefined();
    expect(reply({ url: 'http://127.0.0.1:5000/messages', body: KEY })).toBeUndefined();
    expect(reply({ body: 'nothing here' })).toBeUndefined();
    const { sightings, inspected } = keys.take();
    expect(sightings).toHaveLength(3);
    expect(inspected).toBe(5);
  });

  it('the run-wide record fails with every sighting, passes with replies and none, and is not testable with no reply', () => {
    reply({ headers: { 'x-echo': KEY } });
    const failed = keyEchoRecord(keys.take());
    expect(failed.status).toBe('fail');
    expect(failed.message).toMatch(/^1 of the 1 replies the run received carried a key the run holds: POST \/api\/mcp\/v1, sent by the run itself, outside any check: HTTP 200; header x-echo: the run's key/);
    expect(JSON.stringify(failed)).not.toContain(SECRET);
    reply({});
    expect(keyEchoRecord(keys.take()).status).toBe('pass');
    expect(keyEchoRecord(keys.take()).status).toBe('not-testable');
  });
});

describe('the wire client learns a bootstrapped key before recording its reply, and notes a reply that carries one', () => {
  it('redacts the new key and its parts from the bootstrap record, and finds its base64 in a later reply\'s header', async () => {
    const minted = `cnv_live_${secretOf()}`;
    const server = createServer((req, res) => {
      if (req.url === '/api/agent/bootstrap') {
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ apiKey: minted, prefix: 'cnv', secret: minted.slice(9) }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-digest': Buffer.from(minted).toString('base64') }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const run = new RunState();
      run.keys.configure({ baseUrl: base, mcpUrl: `${base}/api/mcp/v1` });
      const log: Exchange[] = [];
      const http = new WireClient(log, () => [], { timeoutMs: 5000, pace: false, run });
      const boot = await http.request(`${base}/api/agent/bootstrap`, { json: { humanEmail: 'a@example.com' } });
      expect(boot.json.apiKey).toBe(minted); // the check gets the reply as it came
      expect(keyLeaks(JSON.stringify(log), [minted])).toEqual([]);
      expect(log[0]!.response!.body).toContain(aliasOf(minted));
      expect(http.keySightings).toEqual([]);
      await http.request(`${base}/api/mcp/v1`, { json: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      expect(http.keySightings.map((s) => s.found)).toEqual([['header x-digest: a key the run bootstrapped, spelt as base64 of its secret part']]);
      expect(keyLeaks(JSON.stringify(log), [minted])).toEqual([]);
      expect(keyLeaks(JSON.stringify(http.keySightings), [minted])).toEqual([]);
    } finally {
      server.close();
    }
  });
});

// Issue 37: process-wide caches only for values without secrets. A run's matchers (and the spellings they
// hold) live in its scope: built once per list within a run, never handed to another run.
describe('the spelling matchers are kept per run', () => {
  it('the same list gets the same matcher within a run, a new one in the next run', () => {
    const secrets = [`cnv_live_${randomBytes(18).toString('base64url')}`];
    const [a1, a2] = inNewScope(() => [matcherFor(secrets), matcherFor([...secrets])]);
    const b = inNewScope(() => matcherFor(secrets));
    expect(a1).toBe(a2);
    expect(b).not.toBe(a1);
    expect(b.replace(`x ${secrets[0]} y`, '<k>')).toBe('x <k> y');
  });
});
