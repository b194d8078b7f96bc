import type { CheckRecord } from '../verdict.js';

/** Exchanges a check that passed (or could not be exercised) keeps in the reports: how its story starts. */
export const KEPT_EXCHANGES = 2;

/**
 * results.json keeps the whole wire log of every check that failed or broke (the evidence a person reads),
 * and of every other check its first KEPT_EXCHANGES exchanges, counting the rest in `wireLeftOut`: on a
 * passing run the wire logs were nine tenths of a 4 MB file. Run after everything that reads the logs
 * (the target-loss rule, the key-echo judge).
 */
export function sampleWire(records: CheckRecord[]): void {
  for (const r of records) {
    if (r.status === 'fail' || r.status === 'error' || r.wire.length <= KEPT_EXCHANGES) continue;
    r.wireLeftOut = r.wire.length - KEPT_EXCHANGES;
    r.wire = r.wire.slice(0, KEPT_EXCHANGES);
  }
}
