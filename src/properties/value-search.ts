import fc from 'fast-check';

/**
 * A search for a value the judge accepts, with a deadline and a cap on draws: the values come from a
 * seeded arbitrary (the same seed draws the same values, so finds the same value first), one small batch at
 * a time, so the clock is read between draws and no search outlives its bounds. A generator that rarely
 * hits (a schema it cannot aim at, or one nothing satisfies) ends the search with what it tried, never a
 * hang.
 */

export interface SearchBounds {
  /** Wall time the search may take, ms. */
  deadlineMs: number;
  /** Draws at most. */
  maxTries: number;
}

/** The derived profile's search for a tool's arguments, once per tool at the start of a run. */
export const ARGUMENT_SEARCH: SearchBounds = { deadlineMs: 1000, maxTries: 5000 };

export type SearchOutcome<T> =
  | { found: true; value: T; tries: number; ms: number }
  | { found: false; tries: number; ms: number; /** Why the last value drawn was refused, when the judge says. */ lastRefusal?: string };

/** Draws per fc.sample call: small, so the deadline is checked often. */
const BATCH = 8;

/** Seeds of the batches after the first: spread out, deterministic. */
const batchSeed = (seed: number, batch: number) => (batch === 0 ? seed : (seed ^ Math.imul(batch, 0x9e3779b1)) | 0);

/**
 * The first value of `arbitrary` (seeded) that `accept` takes, within `bounds`. `refusal` says why a value
 * was refused, for the report of a search that found nothing.
 */
export function searchValue<T>(arbitrary: fc.Arbitrary<T>, accept: (value: T) => boolean, seed: number, bounds: SearchBounds = ARGUMENT_SEARCH, refusal?: (value: T) => string): SearchOutcome<T> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let tries = 0;
  let last: T | undefined;
  for (let batch = 0; tries < bounds.maxTries; batch++) {
    const values = fc.sample(arbitrary, { seed: batchSeed(seed, batch), numRuns: Math.min(BATCH, bounds.maxTries - tries) });
    for (const value of values) {
      tries++;
      if (accept(value)) return { found: true, value, tries, ms: elapsed() };
      last = value;
      if (performance.now() - started >= bounds.deadlineMs) break;
    }
    if (performance.now() - started >= bounds.deadlineMs) break;
  }
  return { found: false, tries, ms: elapsed(), ...(refusal && tries > 0 && { lastRefusal: refusal(last as T) }) };
}

/** The reason a row gives when no valid arguments were found: "no valid arguments found for <tool> within N ms", then what was tried. */
export function noValidArguments(tool: string, outcome: SearchOutcome<unknown> & { found: false }, bounds: SearchBounds = ARGUMENT_SEARCH): string {
  const tried = outcome.tries >= bounds.maxTries ? `${outcome.tries} candidates, the most a search draws` : `${outcome.tries} candidates`;
  return `no valid arguments found for ${tool} within ${bounds.deadlineMs} ms (${tried} from its inputSchema, none valid${outcome.lastRefusal ? `; the last: ${outcome.lastRefusal}` : ''})`;
}
