import { describe, expect, it } from 'vitest';
import type { Consumption, RequirementResult, Results } from '../../src/engine/results.js';
import { renderJunit } from '../../src/reports/junit.js';
import { renderSummary } from '../../src/reports/summary-md.js';
import { describeSearches } from '../../src/reports/property-text.js';
import { describeConsumption } from '../../src/reports/consumption.js';
import type { CheckRecord, PropertyRecord } from '../../src/engine/verdict.js';

/* Issue 36, "small things that erode trust": numbers a team reads on day one must agree with each other. */

const check = (over: Partial<CheckRecord>): CheckRecord => ({ name: 'c', suite: 's', requirementIds: ['x-y'], status: 'pass', observations: [], wire: [], durationMs: 1, ...over });
const property = (id: string): PropertyRecord => ({ id, seed: 1, runsRequested: 100, runs: 50, interrupted: true, timeMs: 900 });
const req = (id: string, group: string, checks: CheckRecord[]): RequirementResult => ({ id, group, level: 'MUST', source: 's', text: 't', status: 'pass', checks });

function results(requirements: RequirementResult[], over: Partial<Results> = {}): Results {
  return {
    schemaVersion: 1, tool: { name: 'mcp-canvas-harness', version: '0.1.0' },
    target: { kind: 'embedded', baseUrl: 'http://127.0.0.1:1', mcpUrl: 'http://127.0.0.1:1/api/mcp/v1' },
    profile: 'reference', protocolRevision: '2025-11-25', seed: 1, strict: false, startedAt: '2026-01-02T03:04:05.000Z', durationMs: 9000,
    requirements, totals: { pass: requirements.length, fail: 0, warn: 0, notTestable: 0, untested: 0, error: 0, notApplicable: 0 },
    verdict: 'conforms: no MUST requirement fails', exitCode: 0, ...over,
  };
}

describe('the number of property searches', () => {
  it('console and summary.md say the same count, results.json propertyBudget.searches', () => {
    // Property a runs under two revisions (two searches, one table row); c was planned but ended before searching.
    const r = results([
      req('x-a', 'g', [check({ property: property('a'), revision: '2025-06-18' }), check({ property: property('a'), revision: '2025-11-25' })]),
      req('x-b', 'g', [check({ property: property('b') })]),
      req('x-c', 'g', [check({ status: 'not-testable', reason: 'no key' })]),
    ], { propertyBudget: { budgetMs: 3600, searches: 4, timeBoxMs: 900 } });
    const line = describeSearches(r)!;
    expect(line).toMatch(/^4 searches \(1 ended before searching, not testable\)/);
    expect(line).not.toMatch(/\b3 searches\b/);
    expect(renderSummary(r)).toContain('### Properties (4 searches)');
  });
});

describe('junit.xml suite time', () => {
  it('is the wall time of its checks (first start to last end), not the sum of checks that ran side by side', () => {
    const at = (s: number) => new Date(Date.parse('2026-01-02T03:04:05.000Z') + s * 1000).toISOString();
    // Five checks of 4 s, side by side from 0 s to 5 s: 5 s of wall time, 20 s of summed time.
    const checks = [0, 0.25, 0.5, 0.75, 1].map((s, i) => check({ name: `c${i}`, requirementIds: ['auth-x'], startedAt: at(s), durationMs: 4000 }));
    const xml = renderJunit(results([req('auth-x', 'auth', checks)]));
    expect(xml).toMatch(/<testsuite name="auth"[^>]* time="5\.000"/);
  });
});

describe('the consumption line', () => {
  const spent: Consumption = { bootstrapBudget: 6, requests: 40, bootstraps: 0, workspaces: 0, mails: 0, blocksCreated: 0, rateLimited: 0, waitedMs: 0, waitBudgetMs: 60_000, bootstrapShares: {} };

  it('an --mcp-url run, which cannot bootstrap, prints no bootstrap budget', () => {
    const line = describeConsumption({ ...spent, canBootstrap: false });
    expect(line).not.toMatch(/bootstrap|budget 6\b/);
    expect(line).toMatch(/^40 requests/);
  });

  it('a run that can bootstrap still says its budget', () => {
    expect(describeConsumption(spent)).toContain('0 bootstraps (budget 6)');
  });
});
