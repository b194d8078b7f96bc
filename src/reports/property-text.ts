import type { PropertyRecord } from '../property.js';

/** One line on a property's search: how many runs in how long, and what it found (for every report). */
export function describeProperty(p: PropertyRecord): string {
  const runs = p.counterexample !== undefined ? `failed at run ${p.runs} of ${p.runsRequested}` : runsText(p);
  const found = p.counterexample !== undefined
    ? `; counterexample after ${p.shrinks ?? 0} shrinks: ${p.counterexample} (path ${p.path})`
    : '';
  return `property ${p.id}: ${runs} in ${(p.timeMs / 1000).toFixed(1)} s, seed ${p.seed}${p.replayed ? `, replaying path ${p.replayed}` : ''}${found}`;
}

/** Runs done: all of them, or how far the time box let the search go. */
export function runsText(p: PropertyRecord): string {
  if (p.runs === p.runsRequested) return `${p.runs} runs`;
  return `${p.runs} of ${p.runsRequested} runs${p.interrupted ? ' (time box)' : ''}`;
}
