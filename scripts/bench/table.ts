/**
 * A box table in the style of autocannon's result tables. Columns are right-aligned unless marked
 * 'l'; a row 'sep' draws a separator line.
 */
export function renderTable(header: string[], rows: (string[] | 'sep')[], align: ('l' | 'r')[] = []): string {
  const cells = rows.filter((r): r is string[] => r !== 'sep');
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const cell = (text: string, i: number) => (align[i] === 'l' ? text.padEnd(widths[i]!) : text.padStart(widths[i]!));
  const line = (l: string, m: string, r: string) => `${l}${widths.map((w) => '─'.repeat(w + 2)).join(m)}${r}`;
  const row = (r: string[]) => `│${widths.map((_, i) => ` ${cell(r[i] ?? '', i)} `).join('│')}│`;
  return [
    line('┌', '┬', '┐'),
    row(header.map((h, i) => (align[i] === 'l' ? h.padEnd(widths[i]!) : h.padStart(widths[i]!)))),
    line('├', '┼', '┤'),
    ...rows.map((r) => (r === 'sep' ? line('├', '┼', '┤') : row(r))),
    line('└', '┴', '┘'),
  ].join('\n');
}

export const int = (n: number): string => Math.round(n).toLocaleString('en-US');
export const fixed = (n: number, digits: number): string => n.toFixed(digits);
export const pct = (n: number): string => `${(n * 100).toFixed(1)}%`;
