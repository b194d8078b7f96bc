import type { CheckRecord } from '../engine/verdict.js';

/** Exchanges a check that passed (or could not be exercised) keeps in the reports: how its story starts. */
export const KEPT_EXCHANGES = 2;

/**
 * results.json keeps the whole wire log of every check that failed or broke (the evidence a person reads), or
 * whose verdict rests on all of it (`keepWire`: a probe that found nothing),
 * and of every other check KEPT_EXCHANGES exchanges, counting the rest in `wireLeftOut`: its first, and its
 * fullest stream after that (the most events; else its second), since a streaming check's stream comes
 * after its handshake and its setup.
 * On a passing run the wire logs were nine tenths of a 4 MB file. Run after everything that reads the logs
 * (the target-loss rule, the key-echo judge).
 */
export function sampleWire(records: CheckRecord[]): void {
  for (const r of records) {
    const keep = r.keepWire;
    delete r.keepWire;
    if (keep || r.status === 'fail' || r.status === 'error' || r.wire.length <= KEPT_EXCHANGES) continue;
    // The stream that shows the most (its events), the first of equals.
    let stream = -1;
    r.wire.forEach((x, i) => {
      const events = x.response?.events?.length ?? 0;
      if (i > 0 && events > 0 && (stream < 0 || events > r.wire[stream]!.response!.events!.length)) stream = i;
    });
    r.wireLeftOut = r.wire.length - KEPT_EXCHANGES;
    r.wire = [r.wire[0]!, r.wire[stream > 0 ? stream : 1]!];
  }
}
