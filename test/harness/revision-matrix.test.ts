import { describe, expect, it } from 'vitest';
import { requirement } from '../../src/catalog/index.js';
import type { Revision } from '../../src/catalog/types.js';
import { aggregate, decide, revisionMatrix, type Results } from '../../src/engine/results.js';
import { renderJunit } from '../../src/reports/junit.js';
import { renderHtml } from '../../src/reports/report-html.js';
import { renderSummary } from '../../src/reports/summary-md.js';
import type { CheckRecord } from '../../src/engine/verdict.js';

const rec = (id: string, status: CheckRecord['status'], revision?: Revision): CheckRecord =>
  ({ name: `check of ${id}`, suite: 's', requirementIds: [id], status, observations: [], wire: [], durationMs: 1, ...(revision && { revision }) });

const SUPPORTED = 'jsonrpc-protocol-version-supported'; // 2025-03-26, 2025-06-18, 2025-11-25
const BATCH = 'jsonrpc-batch-2025-03-26'; // 2025-03-26 only
const PLAIN = 'jsonrpc-no-5xx'; // every revision

function results(records: CheckRecord[]): Results {
  const ids = new Set([SUPPORTED, BATCH, PLAIN]);
  const { requirements, totals } = aggregate(records, (r) => ids.has(r.id), new Set());
  return {
    schemaVersion: 1, tool: { name: 't', version: '1' }, target: { kind: 'embedded', baseUrl: 'http://x', mcpUrl: 'http://x/api/mcp/v1' },
    profile: 'reference', protocolRevision: '2025-03-26, 2025-06-18', seed: 1, strict: false, startedAt: new Date(0).toISOString(), durationMs: 1,
    requirements, totals, ...decide(requirements, false),
  };
}

describe('the revision x row matrix', () => {
  const records = [
    rec(SUPPORTED, 'pass', '2025-03-26'), rec(SUPPORTED, 'fail', '2025-06-18'),
    rec(BATCH, 'not-testable', '2025-03-26'),
    rec(PLAIN, 'pass', '2025-06-18'),
  ];

  it('has a column per revision spoken and a row per revision-dependent requirement', () => {
    const r = results(records);
    expect(r.requirements.find((x) => x.id === SUPPORTED)!.revisions).toEqual(requirement(SUPPORTED).revisions);
    expect(r.requirements.find((x) => x.id === PLAIN)).not.toHaveProperty('revisions');
    expect(revisionMatrix(r.requirements)).toEqual({
      revisions: ['2025-03-26', '2025-06-18'],
      rows: [
        { id: SUPPORTED, level: 'MUST', cells: { '2025-03-26': 'pass', '2025-06-18': 'fail' } },
        { id: BATCH, level: 'MUST', cells: { '2025-03-26': 'not-testable', '2025-06-18': 'not-applicable' } },
      ],
    });
  });

  it('is empty when no revision-dependent check spoke a revision', () => {
    expect(revisionMatrix(results([rec(SUPPORTED, 'not-testable'), rec(PLAIN, 'pass', '2025-11-25')]).requirements).rows).toEqual([]);
  });

  it('is shown in summary.md and report.html; JUnit names a per-revision run with its revision', () => {
    const r = results(records);
    const md = renderSummary(r);
    expect(md).toContain('| Requirement | 2025-03-26 | 2025-06-18 |');
    expect(md).toContain(`| \`${SUPPORTED}\` | pass | fail |`);
    expect(md).toContain(`| \`${BATCH}\` | n/t | — |`);
    expect(md).toContain(`**check of ${SUPPORTED} \\[2025-06-18\\]**`);
    const html = renderHtml(r);
    expect(html).toMatch(/<section id="revisions">[\s\S]*<th>2025-06-18<\/th>[\s\S]*jsonrpc-protocol-version-supported/);
    const junit = renderJunit(r);
    expect(junit).toContain(`name="check of ${SUPPORTED} [2025-06-18]"`);
    expect(junit).toContain(`name="check of ${PLAIN}"`); // a row that does not depend on the revision keeps its name
  });
});
