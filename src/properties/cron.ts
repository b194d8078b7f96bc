/**
 * Cron evaluated independently of any service: Vixie cron semantics at minute resolution, in an IANA time zone
 * read with Intl (DST gaps and repeated hours included). The schedule property (suites/properties/schedule.suite.ts)
 * checks schedule.preview's answers against it.
 */

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
/** Bound on the minute scan between two runs (a yearly schedule needs a few thousand steps). */
export const SCAN_LIMIT = 200_000;

export interface Cron {
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

export function parseCron(text: string): Cron {
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
export function isScheduled(c: Cron, tz: string, t: number): boolean {
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
export function firstScheduled(c: Cron, tz: string, a: number, b: number, skipAmbiguous: boolean): { at?: number; exhausted: boolean } {
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

/** Instants where the zone's UTC offset changes in `year` (to the minute), cached. */
const transitionCache = new Map<string, number[]>();
export function transitions(tz: string, year: number): number[] {
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

/** Wall-clock text of instant `t` in `tz`, with the weekday, for failure messages. */
export const localText = (t: number, tz: string) => {
  const w = wall(t, tz);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${w.year}-${two(w.month)}-${two(w.day)} ${two(w.hour)}:${two(w.minute)} ${['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][w.dow]} ${tz}`;
};
