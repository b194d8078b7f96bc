import { readFileSync } from 'node:fs';

/** Machine-wide CPU time from /proc/stat (Linux), in microseconds; undefined elsewhere. */
export interface SystemCpu { busyMicros: number; stealMicros: number }

/** /proc/stat counts in USER_HZ, which Linux fixes at 100 per second for this file. */
const TICK_MICROS = 1e6 / 100;

export function systemCpu(): SystemCpu | undefined {
  try {
    const first = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest time is inside user)
    const [label, user, nice, system, , , irq, softirq, steal] = first.trim().split(/\s+/);
    if (label !== 'cpu') return undefined;
    const n = (v: string | undefined) => Number(v ?? 0);
    return { busyMicros: (n(user) + n(nice) + n(system) + n(irq) + n(softirq)) * TICK_MICROS, stealMicros: n(steal) * TICK_MICROS };
  } catch {
    return undefined;
  }
}
