/**
 * Live progress of a conformance run, on stderr: a line per suite file (its requirement group; a property
 * suite is named properties/<name>) as soon as all its checks are done, with its pass / fail / warn / not
 * testable counts and its wall time. On a terminal a status line below them is redrawn with the run's
 * elapsed time, the checks done so far and the checks in progress; without a terminal (CI) only the plain
 * group lines are written, no escape codes. Every line passes the run's scrubber first.
 *
 * Fed by the run's events (`events()`, src/engine/runner.ts) and its property searches (`search()`).
 */
import { byId } from '../catalog/index.js';
import type { SearchProgress } from '../budget/run-ledger.js';
import type { PlannedCheck } from './check.js';
import type { RunnerEvents } from './runner.js';
import { scrubText, Secrets } from '../kit/scrub.js';
import type { CheckRecord } from './verdict.js';

export interface GroupCounts { pass: number; fail: number; warn: number; notTestable: number; error: number; notApplicable?: number }

export interface ProgressOptions {
  /** Where lines go (default: process.stderr). */
  write?: (text: string) => void;
  /** A terminal: redraw a status line (default: whether stderr is a TTY). */
  tty?: boolean;
  /** Terminal width for the status line (default: stderr's columns, else 100). */
  columns?: () => number;
}

/** A check's contribution: a failing check fails when one of its rows is a MUST, else it warns (as the run's verdict reads rows). */
export function countRecords(records: readonly CheckRecord[]): GroupCounts {
  const counts: GroupCounts = { pass: 0, fail: 0, warn: 0, notTestable: 0, error: 0 };
  for (const r of records) {
    if (r.status === 'pass') counts.pass++;
    else if (r.status === 'not-testable' && r.notApplicable) counts.notApplicable = (counts.notApplicable ?? 0) + 1;
    else if (r.status === 'not-testable') counts.notTestable++;
    else if (r.status === 'error') counts.error++;
    else if (r.requirementIds.some((id) => byId.get(id)?.level === 'MUST')) counts.fail++;
    else counts.warn++;
  }
  return counts;
}

/** `auth checks: 12 pass, 1 fail, 0 warn, 2 not testable (3.4 s)`: check runs, where the totals count requirements. */
export function groupLine(name: string, c: GroupCounts, ms: number): string {
  return `${name} checks: ${c.pass} pass, ${c.fail} fail, ${c.warn} warn, ${c.notTestable} not testable${c.notApplicable ? `, ${c.notApplicable} not applicable` : ''}${c.error ? `, ${c.error} harness error` : ''} (${(ms / 1000).toFixed(1)} s)`;
}

const CLEAR_LINE = '\r\x1b[2K';

export class ConformanceProgress {
  private secrets = new Secrets();
  private readonly write: (text: string) => void;
  private readonly tty: boolean;
  private readonly columns: () => number;
  private readonly started = performance.now();
  private readonly running = new Map<PlannedCheck, string>();
  /** Runs so far of the property searches in progress, by check name. */
  private readonly searching = new Map<string, { search: string; runs: number }>();
  /** Searches that ended: a report still on its way (the posts race) must not bring one back. */
  private readonly searched = new Set<string>();
  private total = 0;
  private done = 0;
  private statusShown = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: ProgressOptions = {}) {
    this.write = options.write ?? ((text) => process.stderr.write(text));
    this.tty = options.tty ?? process.stderr.isTTY === true;
    this.columns = options.columns ?? (() => process.stderr.columns || 100);
  }

  /** Whether there is a status line to show live detail on (a terminal). */
  get live(): boolean {
    return this.tty;
  }

  /** A property search's runs so far (src/budget/run-ledger.ts relays them from the searches). */
  search(progress: SearchProgress): void {
    if (progress.done) {
      this.searching.delete(progress.check);
      this.searched.add(progress.check);
    } else if (!this.searched.has(progress.check)) {
      this.searching.set(progress.check, { search: progress.search, runs: progress.runs });
    }
    this.redraw();
  }

  /** The run's secrets, once its target is prepared: every line is scrubbed with them. */
  setSecrets(secrets: Secrets): void {
    this.secrets = secrets;
  }

  /** The run's events that feed this printer. */
  events(): RunnerEvents {
    return {
      planned: (total) => {
        this.total = total;
        if (this.tty && !this.timer) {
          this.timer = setInterval(() => this.redraw(), 1000);
          this.timer.unref();
        }
        this.redraw();
      },
      checkStart: (p) => {
        this.running.set(p, p.runName);
        this.redraw();
      },
      checkEnd: (p) => {
        this.running.delete(p);
        this.done++;
        this.redraw();
      },
      groupEnd: (group, records, ms) => {
        if (records.length > 0) this.line(groupLine(group, countRecords(records), ms));
      },
    };
  }

  /** A plain line (above the status line on a terminal). */
  line(text: string): void {
    this.write(`${this.tty && this.statusShown ? CLEAR_LINE : ''}${scrubText(text, this.secrets)}\n`);
    this.statusShown = false;
    this.redraw();
  }

  /** Ends the status line: the run is over. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.tty && this.statusShown) this.write(CLEAR_LINE);
    this.statusShown = false;
  }

  private redraw(): void {
    if (!this.tty) return;
    const elapsed = ((performance.now() - this.started) / 1000).toFixed(0);
    // A check searching shows its property and runs so far instead of its name.
    const names = [...this.running.values()].map((name) => {
      const s = this.searching.get(name);
      return s ? `${s.search} (${s.runs} runs)` : name;
    });
    const status = `${elapsed} s, ${this.done}/${this.total} checks${names.length > 0 ? `; running: ${names.join(', ')}` : ''}`;
    const width = Math.max(20, this.columns() - 1);
    const text = scrubText(status, this.secrets);
    this.write(`${CLEAR_LINE}${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
    this.statusShown = true;
  }
}
