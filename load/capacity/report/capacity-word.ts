/** The one word of a capacity run, first on the console and in every report: PASS, FAIL (--expect-rate) or NO ANSWER. */
import type { CapacityReport } from '../capacity-result.js';

export function capacityWord(report: Pick<CapacityReport, 'exitCode'>): 'PASS' | 'FAIL' | 'NO ANSWER' {
  return report.exitCode === 0 ? 'PASS' : report.exitCode === 1 ? 'FAIL' : 'NO ANSWER';
}

/** A rate as a person reads it: 3,100 above 100, 12.5 below. */
export const rateNumber = (v: number) => (v >= 100 ? Math.round(v).toLocaleString('en-US') : String(Math.round(v * 100) / 100));

/** A rate as the reports show it: "3,100 req/s", or "at least 800 req/s" where the generator or the cap set it. */
export function rateText(value: number | null, bound: string): string {
  if (value === null) return 'none';
  return `${bound === 'generator' || bound === 'cap' ? 'at least ' : ''}${rateNumber(value)} req/s`;
}

/**
 * Whether a scenario's search reached a sound answer: it bracketed an SLO break, met a rate limit, or showed a
 * lower bound the generator or the cap set; not when the time ran out, nor when nothing held without a break.
 */
export function soundAnswer(bound: string, sustained: number | null): boolean {
  if (bound === 'time') return false;
  if (bound === 'slo' || bound === 'rate-limit') return true;
  return sustained !== null;
}
