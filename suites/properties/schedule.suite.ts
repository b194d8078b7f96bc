import fc from 'fast-check';
import { describe } from 'vitest';
import { check, type CheckContext } from '../../src/check.js';
import { finalMessage } from '../../src/mcp-session.js';
import { freshKey } from '../../src/properties/workspaces.js';
import type { WireResponse } from '../../src/wire/client.js';

/**
 * schedule.preview searched: 5-field cron expressions (lists, ranges, steps), a `from` instant (often near a DST
 * change, often exactly on a scheduled minute), a count and a time zone. Every answer is checked against an
 * evaluation of the expression done here, minute by minute in the time zone with Intl: the runs are after
 * `from`, increasing, at most `count`, each on a scheduled minute, and none is skipped (they are the *next* runs).
 */

const TIME_ZONES = [
  { weight: 1, arbitrary: fc.constant('UTC') },
  { weight: 3, arbitrary: fc.constant('Europe/Paris') },
  { weight: 3, arbitrary: fc.constant('America/New_York') },
  { weight: 1, arbitrary: fc.constant('Asia/Kolkata') },
];
/** Previews per run, sent at once: each streams (~160 ms on the embedded target), so a run costs one stream's time. */
const PREVIEWS_PER_RUN = 4;
const MAX_RUNS = 8;
const DEADLINE_MS = 2500;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Bound on the minute scan between two runs (a yearly schedule needs a few thousand steps). */
const SCAN_LIMIT = 200_000;

// ---------------------------------------------------------------------------------------------------------
// Cron, evaluated here: Vixie cron semantics at minute resolution.

interface Cron {
  text: string;
  minutes: Set<number>;
  hours: Set<number>;
  doms: Set<number>;
  months: Set<number>;
  dows: Set<number>;
  /** Vixie cron: when both day fields are restricted (neither starts with `*`), a day matches either. */
  either: boolean;
}

function field(text: string, min: number, max: number, wrap7 = false): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|\d+)(?:-(\d+))?(?:\/(\d+))?$/.exec(part);
    if (!m) throw new Error(`cannot read cron field part "${part}"`);
    const step = m[3] === undefined ? 1 : Number(m[3]);
    const lo = m[1] === '*' ? min : Number(m[1]);
    const hi = m[1] === '*' ? max : m[2] !== undefined ? Number(m[2]) : m[3] !== undefined ? max : lo;
    for (let v = lo; v <= hi; v += step) out.add(wrap7 && v === 7 ? 0 : v);
  }
  return out;
}

function parseCron(text: string): Cron {
  const f = text.trim().split(/\s+/);
  if (f.length !== 5) throw new Error(`"${text}" has ${f.length} fields, not 5`);
  return {
    text,
    minutes: field(f[0]!, 0, 59), hours: field(f[1]!, 0, 23), doms: field(f[2]!, 1, 31), months: field(f[3]!, 1, 12), dows: field(f[4]!, 0, 7, true),
    either: !f[2]!.startsWith('*') && !f[4]!.startsWith('*'),
  };
}

interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  dow: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Wall-clock time of instant `t` in `tz`. */
function wall(t: number, tz: string): Wall {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' });
    formatters.set(tz, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(t))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return { year: p.year!, month: p.month!, day: p.day!, hour: p.hour!, minute: p.minute!, dow: new Date(Date.UTC(p.year!, p.month! - 1, p.day!)).getUTCDay() };
}

/** UTC offset of `tz` at `t`, in minutes. */
function offset(t: number, tz: string): number {
  const w = wall(t, tz);
  return Math.round((Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute) - Math.floor(t / MINUTE) * MINUTE) / MINUTE);
}

/** A wall time read as if it were UTC (for a wall time the zone skipped). */
function wallOfUtc(t: number): Wall {
  const d = new Date(t);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), dow: d.getUTCDay() };
}

function dayMatches(c: Cron, w: Wall): boolean {
  if (!c.months.has(w.month)) return false;
  return c.either ? c.doms.has(w.day) || c.dows.has(w.dow) : c.doms.has(w.day) && c.dows.has(w.dow);
}

const matches = (c: Cron, w: Wall) => dayMatches(c, w) && c.hours.has(w.hour) && c.minutes.has(w.minute);

/** Whether the wall time of `t` occurs twice (the hour repeated when clocks go back). */
function ambiguous(t: number, tz: string): boolean {
  const own = offset(t, tz);
  for (const near of [offset(t - 3 * HOUR, tz), offset(t + 3 * HOUR, tz)]) {
    if (near !== own && offset(t + (own - near) * MINUTE, tz) === near) return true;
  }
  return false;
}

/**
 * Whether run `t` is a scheduled minute: its wall time matches; or, just after clocks went forward, the wall
 * time the zone skipped matches and the run fires at the instant the old offset gives it (Vixie, cron-parser).
 */
function isScheduled(c: Cron, tz: string, t: number): boolean {
  if (t % MINUTE !== 0) return false;
  if (matches(c, wall(t, tz))) return true;
  const before = offset(t - 3 * HOUR, tz);
  const now = offset(t, tz);
  return before < now && offset(t - (now - before) * MINUTE, tz) === before && matches(c, wallOfUtc(t + before * MINUTE));
}

/**
 * The first scheduled minute strictly after `a` and before `b` (undefined if none, or if the scan is too long):
 * days that cannot match are skipped a few hours at a time (never past a midnight, whatever DST does), hours an
 * hour at a time. With `skipAmbiguous`, minutes of a repeated hour do not count (implementations fire once or twice).
 */
function firstScheduled(c: Cron, tz: string, a: number, b: number, skipAmbiguous: boolean): { at?: number; exhausted: boolean } {
  let t = Math.floor(a / MINUTE) * MINUTE + MINUTE;
  const minutes = [...c.minutes].sort((x, y) => x - y);
  for (let steps = 0; t < b; steps++) {
    if (steps > SCAN_LIMIT) return { exhausted: true };
    const w = wall(t, tz);
    if (!dayMatches(c, w)) {
      const toMidnight = 24 * 60 - (w.hour * 60 + w.minute);
      t += (toMidnight > 180 ? toMidnight - 120 : 60 - w.minute) * MINUTE;
      continue;
    }
    if (!c.hours.has(w.hour)) {
      t += (60 - w.minute) * MINUTE;
      continue;
    }
    const next = minutes.find((m) => m >= w.minute);
    if (next === undefined) {
      t += (60 - w.minute) * MINUTE;
      continue;
    }
    if (next > w.minute) {
      t += (next - w.minute) * MINUTE;
      continue;
    }
    if (!(skipAmbiguous && ambiguous(t, tz))) return { at: t, exhausted: false };
    t += MINUTE;
  }
  return { exhausted: false };
}

// ---------------------------------------------------------------------------------------------------------
// Generators.

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

/** Instants where the zone's UTC offset changes in `year` (to the minute), cached. */
const transitionCache = new Map<string, number[]>();
function transitions(tz: string, year: number): number[] {
  const key = `${tz} ${year}`;
  let found = transitionCache.get(key);
  if (found) return found;
  found = [];
  for (let m = 0; m < 12; m++) {
    let lo = Date.UTC(year, m, 1);
    let hi = Date.UTC(year, m + 1, 1);
    if (offset(lo, tz) === offset(hi, tz)) continue;
    while (hi - lo > MINUTE) {
      const mid = Math.floor((lo + hi) / 2 / MINUTE) * MINUTE;
      if (offset(mid, tz) === offset(lo, tz)) lo = mid;
      else hi = mid;
    }
    found.push(hi);
  }
  transitionCache.set(key, found);
  return found;
}

interface Preview {
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

const previewArb: fc.Arbitrary<Preview> = fc.record({
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

function show(previews: Preview[]): string {
  return previews.map((p) => `{expression: "${p.expression}", timezone: ${p.timezone}, count: ${p.count}, from: ${p.from} (${p.how})}`).join('; ');
}

function brief(res: WireResponse): unknown {
  return { status: res.status, contentType: res.headers['content-type'], body: finalMessage(res) ?? res.text.slice(0, 300) };
}

/** The run times of a result: structuredContent.runs, or the same in its JSON text. */
function runsOf(result: any): unknown {
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

const localText = (t: number, tz: string) => {
  const w = wall(t, tz);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${w.year}-${two(w.month)}-${two(w.day)} ${two(w.hour)}:${two(w.minute)} ${['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][w.dow]} ${tz}`;
};

/** Checks one preview's runs against the expression evaluated here. */
function verifyRuns(c: CheckContext, p: Preview, runs: unknown): void {
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

describe.concurrent('schedule properties', () => {
  // schedule.preview (its own description in tools/list): "Returns the next run times of a 5-field cron expression
  // (minute hour day-of-month month day-of-week), strictly after `from` (default: now), in the given IANA time zone
  // (default UTC)." service.md §Resources: Schedule, "Operated through `schedule.preview`."
  check('calls-schedule-preview-consistent', 'property: schedule.preview returns the next run times of the expression, after from, in the time zone', async (c) => {
    const recipe = c.target.profile.streaming['schedule.preview'];
    if (!recipe || !('expression' in recipe.arguments) || !('count' in recipe.arguments)) return c.notTestable('the profile has no schedule.preview recipe with `expression` and `count`');
    const key = c.target.admin || c.target.canBootstrap || c.target.apiKey ? await freshKey(c, 'schedule-preview') : null;
    const listed = await c.mcp.request('tools/list', undefined, { key });
    const tool = (finalMessage(listed)?.result?.tools ?? []).find((t: any) => t?.name === recipe.tool);
    const props = tool?.inputSchema?.properties ?? {};
    if (!tool || !['expression', 'count', 'from', 'timezone'].every((p) => p in props)) {
      return c.notTestable(`tools/list has no ${recipe.tool} taking expression, count, from and timezone`);
    }
    c.observe(`${recipe.tool}: "${tool.description ?? ''}"`);
    if (!/cron/i.test(String(tool.description ?? ''))) return c.notTestable(`${recipe.tool}'s description does not say it evaluates cron expressions`);
    let id = 0;
    await c.property({
      id: 'schedule-preview-runs',
      // Always PREVIEWS_PER_RUN previews (almost), but a shrink drops those that do not matter to a failure.
      arbitrary: fc.array(fc.option(previewArb, { freq: 1000, nil: undefined }), { minLength: PREVIEWS_PER_RUN, maxLength: PREVIEWS_PER_RUN })
        .map((xs) => xs.filter((x): x is Preview => x !== undefined)),
      maxRuns: MAX_RUNS,
      show,
      predicate: async (previews) => {
        const replies = await Promise.all(previews.map(async (p) => {
          const args = { ...recipe.arguments, expression: p.expression, count: p.count, from: p.from, timezone: p.timezone };
          try {
            return await c.mcp.call(recipe.tool, args, { key, id: ++id, timeoutMs: Math.min(c.target.timeoutMs, DEADLINE_MS) });
          } catch (err) {
            return c.verify(false, `${recipe.tool} ${JSON.stringify(args)} is answered within ${DEADLINE_MS} ms`, 'a reply', (err as Error).message) as never;
          }
        }));
        previews.forEach((p, i) => {
          const res = replies[i]!;
          const msg = finalMessage(res);
          c.verify(res.status === 200 && msg?.result !== undefined && msg.result.isError !== true, `${p.expression} in ${p.timezone} from ${p.from}: a valid expression gets run times (not an error)`, { result: { runs: '...' } }, brief(res));
          verifyRuns(c, p, runsOf(msg.result));
        });
      },
    });
  });
});
