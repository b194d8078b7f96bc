import type { ConfigOverrides } from '../../fixtures/reference-server/config.js';

/**
 * The reference server's configuration on the embedded and container targets: limits set so the suites'
 * own traffic never trips the rate limiter while a bounded burst does, and short streaming steps.
 */
export const CONFORMANCE_CONFIG: ConfigOverrides = {
  plans: { conformance: { ratePerSecond: 200, burst: 300, maxBlocks: 25 } },
  bootstrapPlan: 'conformance',
  bootstrapRateLimit: { ratePerSecond: 100, burst: 200 },
  streaming: { steps: 4, stepDelayMs: 40 },
};
