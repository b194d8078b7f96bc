/** Numbers for report tables. */

/** A number for tables: at most 3 significant decimals, thousands kept whole. */
export function fmt(n: number | null | undefined, digits = 3): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return 'n/a';
  if (Math.abs(n) >= 1000) return String(Math.round(n));
  return String(Number(n.toPrecision(digits)));
}

/** `+12.3 %` / `−4.0 %`. */
export function pct(n: number | null): string {
  if (n === null || !Number.isFinite(n)) return 'n/a';
  const sign = n > 0 ? '+' : n < 0 ? '−' : '±';
  return `${sign}${Math.abs(n).toFixed(1)} %`;
}
