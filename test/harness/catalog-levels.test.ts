import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/index.js';
import { conventionLevel, sentenceKeyword, type Requirement } from '../../src/catalog/types.js';

type Row = Pick<Requirement, 'id' | 'level' | 'source' | 'text' | 'levelReason'>;

/**
 * A row's level is the one its sentence states (its strongest RFC 2119 keyword; a keyword-less sentence of
 * the description binds as MUST: src/catalog/types.ts), unless the row says in `levelReason` why not. A
 * reason on a row whose level is its sentence's is stale.
 */
function levelProblems(rows: readonly Row[]): string[] {
  return rows.flatMap((r) => {
    const stated = conventionLevel(r);
    const reason = r.levelReason?.trim();
    if (stated === r.level) return reason ? [`${r.id}: a levelReason, but ${r.level} is the level its sentence states`] : [];
    const why = stated ? `its sentence states ${stated}` : 'its sentence states no level (no RFC 2119 keyword, and its source is not service.md)';
    if (!reason) return [`${r.id}: ${r.level}, but ${why}, and no levelReason says why`];
    if (reason.length < 30 || reason.length > 320 || !reason.endsWith('.')) return [`${r.id}: the levelReason is not one sentence of 30 to 320 characters`];
    return [];
  });
}

const row = (over: Partial<Row>): Row => ({ id: 'synthetic-row', level: 'MUST', source: 'RFC 9999 §1', text: 'A sentence.', ...over });

describe('a row\'s level is its sentence\'s, or the row says why not', () => {
  it('every catalog row: its level is the one its sentence states, or a levelReason says why', () => {
    expect(levelProblems(CATALOG)).toEqual([]);
  });

  it('the keyword of a sentence is its strongest RFC 2119 keyword, in upper case', () => {
    expect(sentenceKeyword('The server MUST NOT reply.')).toBe('MUST');
    expect(sentenceKeyword('This member is REQUIRED.')).toBe('MUST');
    expect(sentenceKeyword('It SHALL be so.')).toBe('MUST');
    expect(sentenceKeyword('Clients **SHOULD** provide it.')).toBe('SHOULD');
    expect(sentenceKeyword('It is RECOMMENDED.')).toBe('SHOULD');
    expect(sentenceKeyword('The server MAY terminate the session, after which it MUST respond with 404.')).toBe('MUST');
    expect(sentenceKeyword('Implementations MAY support it; it SHOULD be rare.')).toBe('SHOULD');
    expect(sentenceKeyword('This field is OPTIONAL.')).toBe('MAY');
    expect(sentenceKeyword('A call should return a tool error.')).toBeUndefined();
    expect(sentenceKeyword('The server keeps no session state.')).toBeUndefined();
  });

  it('a keyword-less sentence binds as MUST when it quotes the description, and states nothing otherwise', () => {
    expect(conventionLevel({ source: 'service.md §Limits', text: 'The server keeps no session state between POSTs.' })).toBe('MUST');
    expect(conventionLevel({ source: 'RFC 9110 §11.1; service.md §Authentication 1', text: 'It uses a case-insensitive token.' })).toBeUndefined();
    expect(conventionLevel({ source: 'service.md §Limits', text: 'Clients SHOULD back off.' })).toBe('SHOULD');
  });

  it('the check can fail: a level that differs without a reason, or a stale reason, is reported', () => {
    expect(levelProblems([row({ level: 'SHOULD', text: 'The server MUST reply.' })])).toEqual(['synthetic-row: SHOULD, but its sentence states MUST, and no levelReason says why']);
    expect(levelProblems([row({ level: 'SHOULD', source: 'service.md §Limits', text: 'Per-plan rate limits exist.' })])).toHaveLength(1);
    expect(levelProblems([row({ level: 'MUST', text: 'The 5xx class indicates that the server erred.' })])).toHaveLength(1);
    expect(levelProblems([row({ level: 'INFO', text: 'A call should return a tool error.', levelReason: 'Too short.' })])).toHaveLength(1);
    expect(levelProblems([row({ level: 'MUST', text: 'The server MUST reply.', levelReason: 'A reason for a level its sentence already states.' })])).toHaveLength(1);
    // With an honest reason, or a level its sentence states, nothing is reported.
    expect(levelProblems([
      row({ level: 'SHOULD', text: 'The server MUST reply.', levelReason: 'The sentence is applied by analogy to a case it does not name.' }),
      row({ level: 'MUST', source: 'service.md §Limits', text: 'The server keeps no session state between POSTs.' }),
      row({ level: 'MAY', text: 'It MAY be done.' }),
    ])).toEqual([]);
  });
});
