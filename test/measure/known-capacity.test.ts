/**
 * The capacity search against endpoints whose capacity is known by construction (fixtures/capacity): a FIFO
 * queue (constant and Poisson arrivals), a token bucket, a latency step, a periodic stall, and the generator
 * itself as the bottleneck. Each prints its row (true, found, found/true, band). The endpoints keep time on a
 * virtual clock, so the truth does not depend on this machine's speed; the SLOs leave room for a busy machine's
 * jitter (service 40 ms, threshold 100 ms at the 90th percentile).
 */
import { describe, expect, it } from 'vitest';
import { trueCapacity, type CapacitySpec } from '../../fixtures/capacity/models.js';
import { maxRateForPercentile } from '../../fixtures/capacity/simulate.js';
import { row, searchFixture } from '../capacity/helpers/search-fixture.js';

const QUEUE: CapacitySpec = { model: 'queue', servers: 8, serviceMs: 40 };
const SLO = 'p90<=100ms,errors<=10%';

describe('the capacity search finds what is known by construction', () => {
  it('a FIFO queue, constant arrivals: the sustained rate within [0.90, 1.02] of servers / service time', async () => {
    const truth = trueCapacity(QUEUE).rate!;
    const { scenario } = await searchFixture(QUEUE, SLO);
    expect(scenario.bound, scenario.summary).toBe('slo');
    const ratio = row('FIFO queue 8 x 40 ms, constant', truth, scenario.sustained, [0.9, 1.02]);
    expect(ratio, scenario.summary).toBeGreaterThanOrEqual(0.9);
    expect(ratio, scenario.summary).toBeLessThanOrEqual(1.02);
  }, 240_000);

  it('the same queue, Poisson arrivals: within ±10 % of what an M/D/c simulation gives for the SLO', async () => {
    const truth = maxRateForPercentile(8, 40, 90, 100);
    const { scenario } = await searchFixture(QUEUE, SLO, { arrivals: 'poisson', seed: 7 });
    expect(scenario.bound, scenario.summary).toBe('slo');
    const ratio = row('FIFO queue 8 x 40 ms, Poisson (M/D/8 simulation)', truth, scenario.sustained, [0.9, 1.1]);
    expect(ratio, scenario.summary).toBeGreaterThanOrEqual(0.9);
    expect(ratio, scenario.summary).toBeLessThanOrEqual(1.1);
  }, 240_000);

  it('a token bucket: bound "rate-limit", never a capacity above the bucket\'s rate', async () => {
    const spec: CapacitySpec = { model: 'token-bucket', rate: 150, burst: 20 };
    const { scenario } = await searchFixture(spec, SLO, { startRate: 50 });
    expect(scenario.bound, scenario.summary).toBe('rate-limit');
    expect(scenario.broke).toBeNull();
    // No capacity at all: what held below the 429s is reported apart (a bucket's burst stretches a window's rate).
    expect(scenario.sustained).toBeNull();
    expect(scenario.rateLimit!.firstAt).toBeGreaterThan(150 * 0.95);
    row('token bucket 150/s: 429s from (rate-limit bound, sustained null)', 150, scenario.rateLimit!.firstAt, [0.95, 1.25]);
  }, 240_000);

  it('a latency step at a known rate: found within [0.90, 1.00] of it', async () => {
    const spec: CapacitySpec = { model: 'latency-step', kneeRate: 150, lowMs: 5, highMs: 150 };
    const { scenario } = await searchFixture(spec, SLO, { startRate: 50 });
    expect(scenario.bound, scenario.summary).toBe('slo');
    const ratio = row('latency step at 150/s', 150, scenario.sustained, [0.9, 1.0]);
    expect(ratio, scenario.summary).toBeGreaterThanOrEqual(0.9);
    expect(ratio, scenario.summary).toBeLessThanOrEqual(1.0);
  }, 240_000);

  it('five searches on one endpoint agree: coefficient of variation at most 5 %', async () => {
    const found: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { scenario } = await searchFixture(QUEUE, SLO, { startRate: 150 });
      expect(scenario.bound, scenario.summary).toBe('slo');
      found.push(scenario.sustained!);
    }
    const mean = found.reduce((a, b) => a + b, 0) / found.length;
    const cv = Math.sqrt(found.reduce((a, b) => a + (b - mean) ** 2, 0) / (found.length - 1)) / mean;
    console.log(`known capacity: repeatability: ${found.join(', ')} req/s, mean ${mean.toFixed(1)}, CV ${(cv * 100).toFixed(2)} %`);
    expect(cv).toBeLessThanOrEqual(0.05);
  }, 600_000);
});
