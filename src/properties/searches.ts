import type { Revision } from '../catalog/types.js';

/**
 * Every property search of the suites, by the id `--replay` names, with the requirement rows its check
 * verifies: a run knows from this table, before any suite loads, how many searches its selection makes, and
 * splits its `--budget` among them. test/harness/reference-conforms.test.ts holds the table to the searches
 * a full run makes (an id missing here, or a row a search verifies that is not listed, fails it).
 */
export interface PropertySearch {
  id: string;
  rows: readonly string[];
  /** Searched once per revision of these the target speaks (the check runs per revision). */
  perRevision?: readonly Revision[];
}

export const PROPERTY_SEARCHES: readonly PropertySearch[] = [
  { id: 'auth-any-value', rows: ['auth-key-not-echoed', 'auth-other-scheme-401', 'auth-unknown-key-401'] },
  { id: 'auth-key-edits', rows: ['auth-altered-key-401', 'auth-key-not-echoed'] },
  { id: 'bootstrap-spoiled-bodies', rows: ['bootstrap-bad-field-no-5xx', 'bootstrap-missing-field-no-5xx'] },
  { id: 'bootstrap-valid-bodies', rows: ['bootstrap-key-works', 'bootstrap-returns-claim-url', 'bootstrap-returns-key'] },
  { id: 'jsonrpc-batches', rows: ['jsonrpc-batch-2025-03-26'] },
  { id: 'jsonrpc-envelope-ids', rows: ['jsonrpc-id-echo'] },
  { id: 'jsonrpc-envelope-invalid', rows: ['jsonrpc-invalid-request'] },
  { id: 'jsonrpc-envelope-no-5xx', rows: ['jsonrpc-no-5xx'] },
  { id: 'jsonrpc-envelope-notifications', rows: ['jsonrpc-invalid-notification-4xx', 'jsonrpc-notification-202'] },
  { id: 'jsonrpc-envelope-requests', rows: ['jsonrpc-method-not-found'] },
  { id: 'jsonrpc-envelope-shape', rows: ['jsonrpc-error-object', 'jsonrpc-result-xor-error', 'jsonrpc-version-member'] },
  { id: 'schedule-preview-runs', rows: ['calls-schedule-preview-consistent'] },
  {
    id: 'service-model',
    rows: ['auth-revoked-key-401', 'auth-workspace-scoped-read', 'auth-workspace-scoped-write', 'calls-published-filter-partitions', 'model-created-block-listed', 'model-revocation-per-key', 'model-sibling-keys-same-workspace'],
  },
  { id: 'tool-arguments-invalid', rows: ['calls-invalid-arguments-rejected'] },
  { id: 'tool-arguments-sep-1303', rows: ['calls-invalid-arguments-tool-error'], perRevision: ['2025-11-25', '2026-07-28'] },
  { id: 'tool-arguments-valid', rows: ['calls-valid-arguments-accepted'] },
];

/** How many searches a run makes: those verifying a selected row, a per-revision one once per revision spoken. */
export function countSearches(selected: (id: string) => boolean, revisions: readonly Revision[]): number {
  return PROPERTY_SEARCHES.filter((s) => s.rows.some(selected))
    .reduce((n, s) => n + (s.perRevision ? Math.max(1, s.perRevision.filter((r) => revisions.includes(r)).length) : 1), 0);
}

/** The shortest time box a search gets, however large the run: a few runs at least, never none. */
export const MIN_TIME_BOX_MS = 100;

/** Each search's time box when `budgetMs` is split among `searches`. */
export function timeBoxOf(budgetMs: number, searches: number): number {
  return Math.max(MIN_TIME_BOX_MS, Math.floor(budgetMs / Math.max(1, searches)));
}
