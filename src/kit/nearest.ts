/** Edit distance (insertions, deletions, substitutions) between two strings. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/**
 * The `count` names closest to `asked`, for a "did you mean" line: a name containing what was asked comes first
 * (the part of a name someone remembers), then by edit distance; ties keep the list's order.
 */
export function nearestNames(asked: string, names: readonly string[], count = 5): string[] {
  const wanted = asked.toLowerCase();
  return names
    .map((name, index) => ({ name, index, contains: name.toLowerCase().includes(wanted) ? 0 : 1, distance: distance(wanted, name.toLowerCase()) }))
    .sort((a, b) => a.contains - b.contains || a.distance - b.distance || a.index - b.index)
    .slice(0, count)
    .map((x) => x.name);
}
