import fc from 'fast-check';
import type { CheckContext } from '../engine/check.js';
import { firstScheduled, HOUR, isScheduled, localText, MINUTE, parseCron, SCAN_LIMIT, transitions } from './cron.js';

/**
 * schedule.preview calls as the schedule property generates them (5-field cron expressions with lists, ranges and
 * steps; a `from` instant often near a DST change, often exactly on a scheduled minute; a count; a time zone), and
 * the judge of their answers against the cron evaluated in src/properties/cron.ts.
 */

const TIME_ZONES = [
  { weight: 1, arbitrary: fc.constant('UTC') },
  { weight: 3, arbitrary: fc.constant('Europe/Paris') },
  { weight: 3, arbitrary: fc.constant('America/New_York') },
  { weight: 1, arbitrary: fc.constant('Asia/Kolkata') },
];

const pick = (min: number, max: number) => fc.integer({ min, max });
const sortedUnique = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b);

/**
 * One cron field. Day fields never start with `*` unless they are exactly `*`: implementations differ on whether
 * `*\/2` counts as restricted for the day-of-month/day-of-week OR rule, and that is not what this property asks.
 */
function cronField(min: number, max: number, star: number, dayField: boolean): fc.Arbitrary<string> {
  const range = fc.tuple(pick(min, max), pick(min, max)).filter(([a, b]) => a < b && !(a === min && b === max)).map(([a, b]) => `${a}-${b}`);
  const steps = dayField
    ? fc.tuple(pick(min, max - 1), pick(2, 4)).map(([a, s]) => `${a}-${max}/${s}`)
    : fc.oneof(pick(2, Math.max(2, Math.floor((max - min) / 2))).map((s) => `*/${s}`), fc.tuple(pick(min, max - 1), pick(2, 5)).map(([a, s]) => `${a}-${max}/${s}`));
  return fc.oneof(
    { weight: star, arbitrary: fc.constant('*') },
    { weight: 3, arbitrary: pick(min, max).map(String) },
    { weight: 2, arbitrary: fc.array(pick(min, max), { minLength: 2, maxLength: 3 }).map((xs) => sortedUnique(xs).join(',')) },
    { weight: 2, arbitrary: range },
    { weight: 2, arbitrary: steps },
  );
}

const expressionArb = fc.tuple(
  cronField(0, 59, 2, false),
  cronField(0, 23, 4, false),
  // Days 1-28: every month has them, so an expression always fires within a year.
  cronField(1, 28, 6, true),
  cronField(1, 12, 12, false),
  cronField(0, 6, 6, true),
).map((f) => f.join(' '));

export interface Preview {
  expression: string;
  timezone: string;
  count: number;
  /** `from` as sent (RFC 3339, `Z` or a numeric offset), and as an instant. */
  from: string;
  fromMs: number;
  /** How `from` was chosen, for reports. */
  how: string;
}

/** RFC 3339 text of instant `t`, in UTC or with a numeric offset. */
function rfc3339(t: number, offsetMinutes: number | null): string {
  if (offsetMinutes === null) return new Date(t).toISOString();
  const local = new Date(t + offsetMinutes * MINUTE).toISOString().slice(0, 23);
  const abs = Math.abs(offsetMinutes);
  return `${local}${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

export const previewArb: fc.Arbitrary<Preview> = fc.record({
  expression: expressionArb,
  timezone: fc.oneof(...TIME_ZONES),
  count: pick(1, 10),
  year: pick(2000, 2035),
  // Near a DST change (Paris, New York) or anywhere in the year.
  nearDst: fc.oneof({ weight: 2, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  minutesBefore: fc.oneof(pick(0, 180), pick(0, 3 * 24 * 60)),
  yearFraction: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
  // On a whole minute, off it, or exactly on a scheduled minute.
  moment: fc.oneof({ weight: 1, arbitrary: fc.constant('aligned' as const) }, { weight: 1, arbitrary: fc.constant('unaligned' as const) }, { weight: 1, arbitrary: fc.constant('scheduled' as const) }),
  ms: pick(1, MINUTE - 1),
  writtenWith: fc.option(fc.constantFrom(-300, -240, 60, 120, 330), { freq: 3 }),
}).map((v) => {
  const edges = v.nearDst ? transitions(v.timezone, v.year) : [];
  let from: number;
  let how: string;
  if (edges.length > 0) {
    const edge = edges[Math.floor(v.yearFraction * edges.length)]!;
    from = edge - v.minutesBefore * MINUTE;
    how = `${v.minutesBefore} min before the offset change at ${new Date(edge).toISOString()}`;
  } else {
    const start = Date.UTC(v.year, 0, 1);
    from = start + Math.floor(v.yearFraction * (Date.UTC(v.year + 1, 0, 1) - start));
    how = 'anywhere in the year';
  }
  from = Math.floor(from / MINUTE) * MINUTE;
  if (v.moment === 'unaligned') from += v.ms;
  if (v.moment === 'scheduled') {
    const next = firstScheduled(parseCron(v.expression), v.timezone, from - 1, from + 400 * 24 * HOUR, false).at;
    if (next !== undefined) {
      from = next;
      how += ', moved to the next scheduled minute';
    }
  }
  return { expression: v.expression, timezone: v.timezone, count: v.count, from: rfc3339(from, v.writtenWith), fromMs: from, how };
});

/** Previews as sent, for counterexamples. */
export function showPreviews(previews: Preview[]): string {
  return previews.map((p) => `{expression: "${p.expression}", timezone: ${p.timezone}, count: ${p.count}, from: ${p.from} (${p.how})}`).join('; ');
}

/** The run times of a result: structuredContent.runs, or the same in its JSON text. */
export function runsOf(result: any): unknown {
  if (Array.isArray(result?.structuredContent?.runs)) return result.structuredContent.runs;
  for (const item of Array.isArray(result?.content) ? result.content : []) {
    if (item?.type !== 'text') continue;
    try {
      const parsed = JSON.parse(item.text);
      if (Array.isArray(parsed?.runs)) return parsed.runs;
    } catch {
      // not JSON
    }
  }
  return undefined;
}

/** Checks one preview's runs against the expression evaluated here. */
export function verifyRuns(c: CheckContext, p: Preview, runs: unknown): void {
  const label = `${p.expression} in ${p.timezone}, count ${p.count}, from ${p.from}`;
  c.verify(Array.isArray(runs) && runs.every((r) => typeof r === 'string' && !Number.isNaN(Date.parse(r))), `${label}: the result lists run times (date-time strings)`, ['<date-time>'], runs);
  const times = (runs as string[]).map((r) => Date.parse(r));
  c.verify(times.length >= 1 && times.length <= p.count, `${label}: between 1 and count (${p.count}) run times`, p.count, runs);
  const cron = parseCron(p.expression);
  let previous = p.fromMs;
  for (const [i, t] of times.entries()) {
    const what = `${label}: run ${i + 1} (${(runs as string[])[i]}, ${localText(t, p.timezone)})`;
    c.verify(t > previous, i === 0 ? `${what} is strictly after from` : `${what} is strictly after run ${i}`, `after ${new Date(previous).toISOString()}`, (runs as string[])[i]);
    c.verify(isScheduled(cron, p.timezone, t), `${what} is a minute the expression schedules in ${p.timezone}`, `a minute matching "${p.expression}"`, localText(t, p.timezone));
    const missed = firstScheduled(cron, p.timezone, previous, t, true);
    if (missed.exhausted) c.observe(`${label}: the scan for a skipped run before run ${i + 1} stopped after ${SCAN_LIMIT} steps`);
    c.verify(missed.at === undefined, `${what}: the scheduled minute ${missed.at === undefined ? '' : `${new Date(missed.at).toISOString()} (${localText(missed.at, p.timezone)})`} comes first and is missing`, missed.at === undefined ? undefined : new Date(missed.at).toISOString(), (runs as string[])[i]);
    previous = t;
  }
}
