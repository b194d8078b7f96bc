import { genericRows, type CheckDefinition } from '../engine/check.js';
import type { Requirement } from '../catalog/types.js';
import type { RunOptions } from '../engine/run-options.js';
import { selection } from '../engine/selection.js';

/**
 * `conformance --list`: the requirements a run with the same options would judge (its --only, --profile and
 * --clients), without sending a request, each with the checks that judge it under that profile. One line per
 * row (id, level, group, the normative sentence) and an indented line per check, or `--json`: the catalog rows
 * themselves with their checks, for a CI gate or a baseline file to be written from.
 */
export function listRequirements(options: Pick<RunOptions, 'only' | 'profile' | 'clients'>, format: 'text' | 'json', checks: readonly CheckDefinition[]): string {
  const { rows, profile } = selection(options, checks);
  const generic = genericRows(checks);
  // The profile a check applies to, as the run plans it (src/engine/check.ts planCheck).
  const applies = (def: CheckDefinition) => (profile.kind === 'generic' ? !!def.options.generic : def.options.generic !== 'only');
  const judging = (r: Requirement) => checks.filter((def) => def.requirementIds.includes(r.id) && applies(def));
  if (format === 'json') {
    return JSON.stringify(rows.map((r) => ({
      id: r.id, level: r.level, group: r.group, source: r.source, text: r.text,
      ...(r.revisions && { revisions: r.revisions }), ...(r.client && { client: r.client }), ...(generic.has(r.id) && { generic: true }),
      checks: judging(r).map((def) => ({ name: def.name, suite: def.suite, ...(def.options.property && { property: def.options.property }) })),
    })), null, 2);
  }
  const width = Math.max(...rows.map((r) => r.id.length));
  const groupWidth = Math.max(...rows.map((r) => r.group.length));
  const counts = (['MUST', 'SHOULD', 'MAY', 'INFO'] as const).map((l) => `${rows.filter((r) => r.level === l).length} ${l}`).join(', ');
  return [
    ...rows.flatMap((r) => [
      `${r.id.padEnd(width)}  ${r.level.padEnd(6)}  ${r.group.padEnd(groupWidth)}  ${r.text.replace(/\s+/g, ' ')}`,
      ...judging(r).map((def) => `    check: ${def.name} (${def.suite})`),
    ]),
    `${rows.length} requirements (${counts}), profile ${options.profile}`,
  ].join('\n');
}
