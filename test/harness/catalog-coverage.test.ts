import { describe, expect, it } from 'vitest';
import { HTTPS_MUTANTS, MUTANTS } from '../../service/mutants/index.js';
import { STDIO_CLIENT_FAULTS, STDIO_FAULTS } from '../../service/mutants/stdio.js';
import { THIRD_PARTY_FAULTS } from '../../fixtures/third-party/faults.js';
import { CATALOG } from '../../src/catalog/index.js';

/** Something the repository breaks on purpose, and the catalog rows it declares broken. */
interface Breaker {
  by: string;
  violates: readonly string[];
}

/**
 * Every deliberate fault whose declared rows a test proves failing: the mutants (test/harness/mutants.test.ts),
 * the broken stdio proxy's faults (test/harness/targets.test.ts) and those only some SDK clients trip on
 * (test/harness/interop-matrix.test.ts), the faults only an https target shows (test/harness/https-target.test.ts), and
 * the SDK servers' faults for rows only the generic profile judges (test/harness/streaming-generic.test.ts).
 * The load and probe variants declare load error kinds, not rows, and the hostile services prove the report
 * door, not a row: neither counts.
 */
const BREAKERS: Breaker[] = [
  ...MUTANTS.map((m) => ({ by: `mutant ${m.name}`, violates: m.violates })),
  ...HTTPS_MUTANTS.map((m) => ({ by: `https mutant ${m.name}`, violates: m.violates })),
  ...STDIO_FAULTS.map((f) => ({ by: `stdio fault ${f.fault}`, violates: [f.violates] })),
  ...STDIO_CLIENT_FAULTS.map((f) => ({ by: `stdio fault ${f.fault} (SDK stdio clients)`, violates: f.violates })),
  ...THIRD_PARTY_FAULTS.map((f) => ({ by: `third-party fault ${f.name}`, violates: f.violates })),
];

/** The ids of the rows no breaker violates: rows the harness has never been shown to fail. */
function uncovered(catalog: readonly { id: string }[], breakers: readonly Breaker[]): string[] {
  const broken = new Set(breakers.flatMap((b) => b.violates));
  return catalog.map((r) => r.id).filter((id) => !broken.has(id));
}

describe('every catalog requirement can fail: a mutant or a stdio fault violates it', () => {
  it('every row is violated by at least one mutant or stdio fault', () => {
    expect(uncovered(CATALOG, BREAKERS)).toEqual([]);
  });

  it('every row a stdio fault declares is a catalog row', () => {
    const ids = new Set(CATALOG.map((r) => r.id));
    for (const b of BREAKERS) for (const id of b.violates) expect(ids.has(id), `${b.by} violates unknown id ${id}`).toBe(true);
  });

  it('the count can fail: an uncovered row, or a row whose only breaker is gone, is reported', () => {
    const synthetic = [...CATALOG, { id: 'synthetic-uncovered-row' }];
    expect(uncovered(synthetic, BREAKERS)).toEqual(['synthetic-uncovered-row']);
    // Rows the mutants invalid-request-served and malformed-input-exception-body alone violate are uncovered without them.
    const without = BREAKERS.filter((b) => b.by !== 'mutant invalid-request-served' && b.by !== 'mutant malformed-input-exception-body');
    expect(uncovered(CATALOG, without)).toEqual(['jsonrpc-invalid-request']);
    expect(uncovered([{ id: 'a-row' }, { id: 'b-row' }], [{ by: 'one', violates: ['b-row'] }])).toEqual(['a-row']);
  });
});
