import type { PropertyRecord } from '../engine/property.js';
import type { Results } from '../engine/results.js';

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

/**
 * The run's searches taken together (a search checking several rows counted once, one per revision it ran
 * under): how many, their runs, their time, and runs per second of searching.
 */
export function searchTotals(results: Results): { searches: number; runs: number; timeMs: number; runsPerS: number } {
  const seen = new Map<string, PropertyRecord>();
  for (const r of results.requirements) for (const c of r.checks) if (c.property) seen.set(`${c.property.id} ${c.revision ?? ''}`, c.property);
  const runs = [...seen.values()].reduce((n, p) => n + p.runs, 0);
  const timeMs = [...seen.values()].reduce((n, p) => n + p.timeMs, 0);
  return { searches: seen.size, runs, timeMs, runsPerS: timeMs > 0 ? (runs * 1000) / timeMs : 0 };
}

/** The run's searches taken together, and the budget they shared, in a line. */
export function describeSearches(results: Results): string | undefined {
  const t = searchTotals(results);
  const b = results.propertyBudget;
  const n = searchCount(results);
  if (n === 0) return undefined;
  // One count everywhere (console, summary.md, README): results.json's propertyBudget.searches when present.
  const ended = t.searches < n ? ` (${n - t.searches} ended before searching, not testable)` : '';
  const budget = b ? `; budget ${formatSeconds(b.budgetMs)}, a ${b.timeBoxMs} ms time box each` : '';
  return `${n} searches${ended}, ${t.runs} runs in ${formatSeconds(t.timeMs)} of searching (${Math.round(t.runsPerS)} runs/s)${budget}`;
}

/** The run's number of searches: the planned ones its budget was split among (results.json `propertyBudget.searches`), else those that ran. */
export function searchCount(results: Results): number {
  return results.propertyBudget?.searches ?? searchTotals(results).searches;
}

const formatSeconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
