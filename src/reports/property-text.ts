import type { PropertyRecord } from '../property.js';
import type { Results } from '../results.js';

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

/** The run's searches taken together: how many, their runs and time, and the budget they shared. */
export function describeSearches(results: Results): string | undefined {
  const seen = new Map<string, PropertyRecord>();
  for (const r of results.requirements) for (const c of r.checks) if (c.property) seen.set(`${c.property.id} ${c.revision ?? ''}`, c.property);
  if (seen.size === 0) return undefined;
  const searches = [...seen.values()];
  const runs = searches.reduce((n, p) => n + p.runs, 0);
  const ms = searches.reduce((n, p) => n + p.timeMs, 0);
  const b = results.propertyBudget;
  const budget = b ? `; budget ${formatSeconds(b.budgetMs)} over ${b.searches} searches, a ${b.timeBoxMs} ms time box each` : '';
  return `${searches.length} searches, ${runs} runs in ${formatSeconds(ms)} of searching (${ms > 0 ? Math.round((runs * 1000) / ms) : 0} runs/s)${budget}`;
}

const formatSeconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
