import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { burstBound, capBound, describeBurstBound, parseLimitsOption, referenceLimitsInForce, resolveRunLimits, validateLimits } from '../../src/profile/limits.js';
import { loadProfile } from '../../src/profile/profile.js';
import { ROOT } from '../../src/engine/run.js';
import { runCli } from './run-cli.js';

describe('declared limits', () => {
  it('--limits parses rate, burst, cap and plan', () => {
    expect(parseLimitsOption('rate=20,burst=40,cap=20', '--limits')).toEqual({ ratePerSecond: 20, burst: 40, maxBlocks: 20 });
    expect(parseLimitsOption('plan=team, rate=0.5', '--limits')).toEqual({ plan: 'team', ratePerSecond: 0.5 });
  });

  it.each([
    ['rate=0', /rate= must be a number above 0/],
    ['rate=abc', /rate= must be/],
    ['burst=0', /burst= must be an integer of at least 1/],
    ['burst=1.5', /burst= must be/],
    ['cap=-1', /cap= must be a non-negative integer/],
    ['speed=3', /takes rate=/],
    ['rate=1,rate=2', /gives rate twice/],
    ['plan=team', /declares no limit/],
    ['plan=a b,rate=1', /plan= must be a name/],
  ])('--limits %s is refused', (value, message) => {
    expect(() => parseLimitsOption(value, '--limits')).toThrow(message);
  });

  it('the burst bound is 1.5 x burst + rate x elapsed + 10, shown with its computation', () => {
    expect(burstBound({ ratePerSecond: 20, burst: 40 }, 0)).toBe(70);
    expect(burstBound({ ratePerSecond: 200, burst: 300 }, 500)).toBe(560);
    expect(describeBurstBound({ ratePerSecond: 200, burst: 300 }, 500)).toBe('1.5 x burst 300 + 200/s x 0.50 s + 10 = 560');
    expect(capBound(25)).toBe(30);
    expect(capBound(20)).toBe(24);
    expect(capBound(0)).toBe(2);
  });

  it('a profile\'s limits are validated: schema, and the plans keys are said to be on', () => {
    expect(validateLimits({ keyPlan: 'a', plans: { a: { ratePerSecond: 1, burst: 2, maxBlocks: 3 } } }, 'p')).toBeTruthy();
    expect(() => validateLimits({ plans: { a: { rate: 1 } } }, 'p')).toThrow(/additional properties \(rate\)/);
    expect(() => validateLimits({ plans: { a: { burst: 0 } } }, 'p')).toThrow(/burst/);
    expect(() => validateLimits({}, 'p')).toThrow(/plans/);
    expect(() => validateLimits({ otherKeyPlan: 'x', plans: {} }, 'p')).toThrow(/names plan "x"/);
  });

  it('the reference profile declares the reference server\'s default plans', () => {
    expect(loadProfile('reference', ROOT).limits).toEqual({
      bootstrapPlan: 'trial',
      plans: { trial: { ratePerSecond: 20, burst: 40, maxBlocks: 20 }, team: { ratePerSecond: 200, burst: 400, maxBlocks: 1000 } },
    });
  });

  it('keys take the bootstrap plan unless given; the limits in force win over the profile; --limits wins over both', () => {
    const profile = validateLimits({ keyPlan: 'team', bootstrapPlan: 'trial', plans: { trial: { ratePerSecond: 20, burst: 40 }, team: { ratePerSecond: 200, burst: 400 } } }, 'p');
    const bootstrapped = resolveRunLimits({ profile, profileName: 'x', keyGiven: false, otherGiven: false })!;
    expect([bootstrapped.keyPlan, bootstrapped.otherKeyPlan]).toEqual(['trial', 'trial']);
    const given = resolveRunLimits({ profile, profileName: 'x', keyGiven: true, otherGiven: true })!;
    expect([given.keyPlan, given.otherKeyPlan]).toEqual(['team', undefined]);
    const inForce = resolveRunLimits({ profile, profileName: 'x', inForce: referenceLimitsInForce(), keyGiven: false, otherGiven: false })!;
    expect(inForce.keyPlan).toBe('conformance');
    expect(inForce.plans.conformance).toEqual({ ratePerSecond: 200, burst: 300, maxBlocks: 25 });
    const cli = resolveRunLimits({
      profile, profileName: 'x', keyGiven: true, otherGiven: true, key: { ratePerSecond: 100 }, other: { plan: 'gold', ratePerSecond: 5, burst: 5 },
    })!;
    expect(cli.plans.team).toEqual({ ratePerSecond: 100, burst: 400 });
    expect([cli.keyPlan, cli.otherKeyPlan, cli.plans.gold]).toEqual(['team', 'gold', { ratePerSecond: 5, burst: 5 }]);
    expect(cli.sources).toEqual(['profile x', '--limits', '--other-limits']);
    // Without --api-key, --limits declares the plan the run's (bootstrapped) keys are on.
    const noKey = resolveRunLimits({ profileName: 'x', keyGiven: false, otherGiven: false, key: { ratePerSecond: 3, burst: 6 } })!;
    expect([noKey.keyPlan, noKey.otherKeyPlan, noKey.bootstrapPlan]).toEqual(['bootstrap plan', 'bootstrap plan', 'bootstrap plan']);
    expect(resolveRunLimits({ profileName: 'x', keyGiven: false, otherGiven: false })).toBeUndefined();
  });
});

describe('conformance command: malformed limits exit 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'limits-'));
  const profile = join(dir, 'bad-limits.json');
  writeFileSync(profile, JSON.stringify({ name: 'bad', kind: 'service', limits: { plans: { trial: { burst: -1 } } } }));
  it.each([
    [['--limits', 'rate=fast'], /--limits rate= must be a number above 0/],
    [['--other-limits', 'rate=1,burst=2'], /--other-limits declares the plan of --other-key/],
    [['--profile', profile, '--only', 'rate-limit-exists'], /"limits" is invalid/],
  ])('%j', async (args, message) => {
    const run = await runCli(args, 30_000);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});
