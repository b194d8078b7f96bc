import type { RunOptions } from '../run-options.js';
import { selection } from '../selection.js';

/**
 * `conformance --list`: the requirements a run with the same options would judge (its --only, --profile and
 * --clients), without sending a request. One line each (id, level, group, the normative sentence), or
 * `--json`: the catalog rows themselves, for a CI gate or a baseline file to be written from.
 */
export function listRequirements(options: Pick<RunOptions, 'only' | 'profile' | 'clients'>, format: 'text' | 'json'): string {
  const { rows } = selection(options);
  if (format === 'json') {
    return JSON.stringify(rows.map((r) => ({
      id: r.id, level: r.level, group: r.group, source: r.source, text: r.text,
      ...(r.revisions && { revisions: r.revisions }), ...(r.client && { client: r.client }), ...(r.generic && { generic: true }),
    })), null, 2);
  }
  const width = Math.max(...rows.map((r) => r.id.length));
  const groupWidth = Math.max(...rows.map((r) => r.group.length));
  const counts = (['MUST', 'SHOULD', 'MAY', 'INFO'] as const).map((l) => `${rows.filter((r) => r.level === l).length} ${l}`).join(', ');
  return [
    ...rows.map((r) => `${r.id.padEnd(width)}  ${r.level.padEnd(6)}  ${r.group.padEnd(groupWidth)}  ${r.text.replace(/\s+/g, ' ')}`),
    `${rows.length} requirements (${counts}), profile ${options.profile}`,
  ].join('\n');
}
