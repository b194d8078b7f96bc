import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../service/reference-server/config.js';

describe('configuration', () => {
  it('merges overrides over the defaults', () => {
    const config = resolveConfig({ keyPrefix: 'acme', plans: { gold: { ratePerSecond: 1, burst: 2, maxBlocks: 3 } }, streaming: { steps: 6 } });
    expect(config.keyPrefix).toBe('acme');
    expect(Object.keys(config.plans)).toEqual(expect.arrayContaining(['trial', 'team', 'gold']));
    expect(config.streaming).toEqual({ steps: 6, stepDelayMs: 75 });
  });

  it.each([
    [{ keyPrefix: 'Has Space' }, /keyPrefix/],
    [{ keyPrefix: '' }, /keyPrefix/],
    [{ keyPrefix: 'pad=' }, /keyPrefix/],
    [{ keyPrefix: 'a_live_b' }, /keyPrefix/],
    [{ bootstrapPlan: 'nope' }, /bootstrapPlan/],
    [{ plans: { bad: { ratePerSecond: 0, burst: 1, maxBlocks: 1 } } }, /plan "bad"/],
    [{ port: 70000 }, /port/],
    [{ streaming: { steps: 0 } }, /streaming/],
    [{ bootstrapRateLimit: { ratePerSecond: 1, burst: 0 } }, /bootstrapRateLimit/],
    [{ publicBaseUrl: 'not a url' }, /publicBaseUrl/],
    [{ publicBaseUrl: 'https://canvas.example.com/app' }, /without a path/],
    [{ publicBaseUrl: 'ftp://canvas.example.com' }, /http\(s\)/],
  ])('rejects %j with a clear message', (overrides, message) => {
    expect(() => resolveConfig(overrides as never)).toThrow(message);
  });

  it('accepts a key prefix of any b64token characters, `_` included', () => {
    for (const keyPrefix of ['acme_sk', 'ACME', 'a-b.c~d+e/f', 'x']) expect(resolveConfig({ keyPrefix }).keyPrefix).toBe(keyPrefix);
  });

  it('accepts an origin with a trailing slash', () => {
    expect(resolveConfig({ publicBaseUrl: 'https://canvas.example.com/' }).publicBaseUrl).toBe('https://canvas.example.com/');
  });
});
