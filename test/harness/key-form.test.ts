import { describe, expect, it } from 'vitest';
import { hasKeyForm, keyPrefixOf, splitKey } from '../../src/kit/key-form.js';
import { keyPrefixOf as targetKeyPrefixOf } from '../../src/targets/bootstrap-keys.js';

const SECRET = 'Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0n';

describe('the key form <KEY_PREFIX>_live_<secret>: a prefix of any characters the description allows', () => {
  it('splits at the first _live_, whatever the prefix holds', () => {
    expect(splitKey(`cnv_live_${SECRET}`)).toEqual({ prefix: 'cnv', secret: SECRET });
    expect(splitKey(`acme_sk_live_${SECRET}`)).toEqual({ prefix: 'acme_sk', secret: SECRET });
    expect(splitKey(`a-b.c~d+e/f_live_${SECRET}`)).toEqual({ prefix: 'a-b.c~d+e/f', secret: SECRET });
    expect(splitKey(`ACME__x_live_${SECRET}`)).toEqual({ prefix: 'ACME__x', secret: SECRET });
    // A secret holding `_live_` stays whole: the first `_live_` ends the prefix.
    expect(splitKey('acme_sk_live_ab_live_cd')).toEqual({ prefix: 'acme_sk', secret: 'ab_live_cd' });
  });

  it('is not a key without a prefix, a secret or `_live_`', () => {
    expect(splitKey(`_live_${SECRET}`)).toBeUndefined();
    expect(splitKey('acme_sk_live_')).toBeUndefined();
    expect(splitKey(`acme_sk_test_${SECRET}`)).toBeUndefined();
    expect(splitKey(SECRET)).toBeUndefined();
  });

  it('the targets read the prefix the same way (url, embedded and container targets use keyPrefixOf)', () => {
    for (const key of [`acme_sk_live_${SECRET}`, `cnv_live_${SECRET}`, 'no key', undefined]) expect(targetKeyPrefixOf(key)).toBe(keyPrefixOf(key));
    expect(targetKeyPrefixOf(`acme_sk_live_${SECRET}`)).toBe('acme_sk');
    expect(keyPrefixOf(`acme_sk_test_${SECRET}`)).toBeUndefined();
  });

  it('has the form with the known prefix, or with any prefix when none is known', () => {
    expect(hasKeyForm(`acme_sk_live_${SECRET}`)).toBe(true);
    expect(hasKeyForm(`acme_sk_live_${SECRET}`, 'acme_sk')).toBe(true);
    // The service's prefix is fixed: a key under another one does not have the form.
    expect(hasKeyForm(`acme_live_${SECRET}`, 'acme_sk')).toBe(false);
    expect(hasKeyForm(`acme_sk_live_${SECRET}`, 'acme')).toBe(false);
    expect(hasKeyForm('acme_sk_live_', 'acme_sk')).toBe(false);
    expect(hasKeyForm(`acme_sk_test_${SECRET}`)).toBe(false);
    expect(hasKeyForm(`acme sk_live_${SECRET}`)).toBe(false);
    expect(hasKeyForm(`acme_sk_live_${SECRET} x`, 'acme_sk')).toBe(false);
  });
});
