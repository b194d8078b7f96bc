import { describe, expect, it } from 'vitest';
import {
  headerFindings, maskByteSequences, parseLegacyFields, parseRateLimit, parseRateLimitPolicy, parseRetryAfter,
} from '../../src/wire/rate-limit-headers.js';

describe('fields that are not Structured Field Lists (RFC 9651: ignored whole)', () => {
  it('reports why, for each way a value breaks the grammar', () => {
    for (const bad of ['"a";q=1,', '"a";q=1 "b"', '"unterminated;q=1', '"a";q=1234567890123456', '"a";q=1.2345', '"a";Q=1', ':not base64!:;q=1', '"a";q=?2']) {
      expect(parseRateLimitPolicy(bad), bad).toMatchObject({ ok: false, why: expect.stringMatching(/not a Structured Field List/) });
      expect(parseRateLimit(bad.replace('q=', 'r=')), bad).toMatchObject({ ok: false });
    }
  });

  it('refuses inner lists and empty fields', () => {
    expect(parseRateLimitPolicy('("a" "b");q=1')).toMatchObject({ ok: false, why: expect.stringMatching(/inner list/) });
    expect(parseRateLimit('')).toMatchObject({ ok: false, why: expect.stringMatching(/empty/) });
  });
});

describe('RateLimit header fields', () => {
  it('reads RateLimit-Policy (draft -10): q, qu, w, pk (by length only), several policies', () => {
    const p = parseRateLimitPolicy('"burst";q=100;w=60, daily;q=1000;w=86400;qu="content-bytes";pk=:AQIDBA==:');
    expect(p).toEqual({
      ok: true,
      value: [
        { name: 'burst', quota: 100, unit: 'requests', windowS: 60 },
        { name: 'daily', quota: 1000, unit: 'content-bytes', windowS: 86400, partitionKeyBytes: 4 },
      ],
    });
    expect(parseRateLimitPolicy('"p";w=60')).toMatchObject({ ok: false, why: expect.stringMatching(/q/) });
    expect(parseRateLimitPolicy('"p";q=10;w=0')).toMatchObject({ ok: false });
    expect(parseRateLimitPolicy('"p";q=10;qu=requests')).toMatchObject({ ok: false, why: expect.stringMatching(/qu/) });
    expect(parseRateLimitPolicy('100;w=60')).toMatchObject({ ok: false, why: expect.stringMatching(/String nor a Token/) });
    expect(parseRateLimitPolicy('')).toMatchObject({ ok: false });
  });

  it('reads RateLimit: r and t', () => {
    expect(parseRateLimit('"probe";r=19;t=1')).toEqual({ ok: true, value: [{ name: 'probe', remaining: 19, resetS: 1 }] });
    expect(parseRateLimit('"probe";t=1')).toMatchObject({ ok: false, why: expect.stringMatching(/r/) });
    expect(parseRateLimit('"probe";r=-1')).toMatchObject({ ok: false });
  });

  it('reads the older three fields and their X- variants', () => {
    expect(parseLegacyFields({ 'ratelimit-limit': '100, 100;w=60', 'ratelimit-remaining': '7', 'ratelimit-reset': '30' }, 'ratelimit-'))
      .toEqual({ family: 'RateLimit-*', limit: 100, windowS: 60, remaining: 7, reset: 30 });
    expect(parseLegacyFields({ 'x-ratelimit-limit': '5000', 'x-ratelimit-reset': '1700000000' }, 'x-ratelimit-'))
      .toEqual({ family: 'X-RateLimit-*', limit: 5000, reset: 1700000000 });
    expect(parseLegacyFields({}, 'ratelimit-')).toBeUndefined();
  });

  it('reads Retry-After as delay-seconds or an HTTP-date (against the reply\'s Date)', () => {
    expect(parseRetryAfter('3')).toEqual({ ok: true, seconds: 3, form: 'delay-seconds' });
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:10 GMT', 'Wed, 21 Oct 2015 07:28:00 GMT')).toEqual({ ok: true, seconds: 10, form: 'HTTP-date' });
    expect(parseRetryAfter(undefined)).toEqual({ ok: false, why: 'absent' });
    expect(parseRetryAfter('soon')).toMatchObject({ ok: false });
    expect(parseRetryAfter('1.5')).toMatchObject({ ok: false });
  });

  it('never reports a partition key\'s value', () => {
    expect(maskByteSequences('"p";q=1;pk=:c2VjcmV0LWtleQ==:')).toBe('"p";q=1;pk=:<10 bytes>:');
  });

  it('sets the fields against the measurement: q vs burst, q/w vs rate, t vs Retry-After', () => {
    const f = headerFindings(
      { 'ratelimit-policy': '"probe";q=40;w=2', ratelimit: '"probe";r=39;t=1' },
      { 'ratelimit-policy': '"probe";q=40;w=2', ratelimit: '"probe";r=0;t=1', 'retry-after': '1' },
      { burst: 41, ratePerSecond: 20.5, retryAfterS: 1 },
      0.1,
    );
    expect(f.agreement.map((a) => [a.header, a.measured, a.agrees])).toEqual([[40, 41, true], [20, 20.5, true], [1, 1, true], [0, 0, true]]);
    // A 50/s bucket of burst 10 admits 50 a second: "q=10;w=1" understates it on both counts (issue 36), "q=50;w=1" is right.
    const differs = headerFindings({ 'ratelimit-policy': '"probe";q=10;w=1' }, undefined, { burst: 10, ratePerSecond: 50 }, 0.1);
    expect(differs.agreement.map((a) => [a.header, a.measured, a.agrees])).toEqual([[10, 50, false], [10, 50, false]]);
    const honest = headerFindings({ 'ratelimit-policy': '"probe";q=50;w=1' }, undefined, { burst: 10, ratePerSecond: 50 }, 0.1);
    expect(honest.agreement.map((a) => a.agrees)).toEqual([true, true]);
    const legacy = headerFindings({ 'x-ratelimit-limit': '60' }, undefined, { burst: 20 }, 0.1);
    expect(legacy.agreement).toEqual([{ what: 'X-RateLimit-Limit vs measured burst', header: 60, measured: 20, agrees: false }]);
    expect(headerFindings(undefined, undefined, {}, 0.1)).toMatchObject({ legacy: [], agreement: [] });
  });
});
