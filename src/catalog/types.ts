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
  /** Revisions it applies to; absent = all. */
  revisions?: Revision[];
  /** The SDK client a row of the interop matrix is about (src/interop/clients.ts). */
  client?: string;
  /** True for rules that hold for any Streamable HTTP MCP server (the generic profile), not just this service. */
  generic?: boolean;
}
