import type { Consumption } from '../engine/results.js';

/**
 * What the run spent of the deployment, in one line for people: the bootstraps against their budget, the
 * workspaces and claim mails they made, requests, blocks, and the 429s waited out.
 */
export function describeConsumption(c: Consumption): string {
  const budget = c.bootstrapBudget === null ? 'unbounded' : String(c.bootstrapBudget);
  const beyond = c.beyondBudget ? Object.values(c.beyondBudget).reduce((a, b) => a + b, 0) : 0;
  return [
    `${c.requests} requests`,
    // A run that cannot bootstrap (--mcp-url) has no use for a bootstrap budget: printing one would mislead.
    ...(c.canBootstrap === false ? [] : [
      `${c.bootstraps} bootstraps (budget ${budget}${beyond > 0 ? `; ${beyond} more wanted, not sent` : ''})`,
      `${c.workspaces} workspaces and ${c.mails} claim mails created`,
    ]),
    `${c.blocksCreated} blocks created`,
    `${c.rateLimited} 429s waited out (${(c.waitedMs / 1000).toFixed(1)} s waited, budget ${(c.waitBudgetMs / 1000).toFixed(0)} s)`,
  ].join(', ');
}
