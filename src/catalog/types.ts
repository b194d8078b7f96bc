/** RFC 2119 strength of a requirement; decides what a failing check means. */
export type Level = 'MUST' | 'SHOULD' | 'MAY' | 'INFO';

/** Protocol revisions the harness knows. */
export const REVISIONS = ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type Revision = (typeof REVISIONS)[number];

/** One row of the requirement catalog: a rule the harness checks, with where it comes from. */
export interface Requirement {
  /** Stable slug, e.g. `auth-missing-key-401`. Never renamed: baselines and CI gates refer to it. */
  id: string;
  /** Group used for JUnit suites and the report matrix, e.g. `auth`, `streaming`. */
  group: string;
  level: Level;
  /** Where the rule is written: `service.md §Authentication 1`, `MCP 2025-11-25 basic/transports`, `RFC 9110 §15.5.6`. */
  source: string;
  /** The normative sentence, quoted. */
  text: string;
  /**
   * Why `level` is not the level the sentence states (`conventionLevel`): one honest sentence. Required
   * when they differ, and when the sentence states none (test/harness/catalog-levels.test.ts).
   */
  levelReason?: string;
  /** Revisions it applies to; absent = all. */
  revisions?: Revision[];
  /** The SDK client a row of the interop matrix is about (src/interop/clients.ts). */
  client?: string;
}

/**
 * The level a row's sentence states, by its strongest RFC 2119 keyword (upper case only, RFC 8174): MUST,
 * MUST NOT, SHALL, SHALL NOT, REQUIRED → MUST; SHOULD, SHOULD NOT, RECOMMENDED → SHOULD; MAY, OPTIONAL → MAY.
 * Undefined when the sentence has none.
 */
export function sentenceKeyword(text: string): Exclude<Level, 'INFO'> | undefined {
  if (/\b(MUST|SHALL|REQUIRED)\b/.test(text)) return 'MUST';
  if (/\b(SHOULD|RECOMMENDED)\b/.test(text)) return 'SHOULD';
  if (/\b(MAY|OPTIONAL)\b/.test(text)) return 'MAY';
  return undefined;
}

/**
 * The level a row takes from its sentence, and the one convention for sentences without a keyword: the
 * service's description (service.md) states what the service does in declarative sentences ("The server
 * keeps no session state"), and it is the only document of the service, so a sentence quoted from it binds
 * as MUST. A row quotes the description when its `source` starts with `service.md`. A keyword-less sentence
 * from anywhere else (a definition in an RFC, a schema, a proposal) states no level: the row's level is then
 * the catalog's decision, undefined here, and its `levelReason` says why.
 */
export function conventionLevel(row: Pick<Requirement, 'text' | 'source'>): Exclude<Level, 'INFO'> | undefined {
  return sentenceKeyword(row.text) ?? (/^service\.md\b/.test(row.source.trim()) ? 'MUST' : undefined);
}
