import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/index.js';
import { REVISIONS } from '../../src/catalog/types.js';

describe('requirement catalog', () => {
  it('has unique, stable slug ids', () => {
    const ids = CATALOG.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)+$/);
  });

  it('every row has a level, a source, the normative text and known revisions', () => {
    for (const r of CATALOG) {
      expect(['MUST', 'SHOULD', 'MAY', 'INFO'], r.id).toContain(r.level);
      expect(r.source.trim().length, r.id).toBeGreaterThan(3);
      expect(r.text.trim().length, r.id).toBeGreaterThan(10);
      for (const rev of r.revisions ?? []) expect(REVISIONS, r.id).toContain(rev);
    }
  });

  it('each group lives in the catalog file of its name, and each file has a suite', () => {
    const files = readdirSync('src/catalog').filter((f) => !['index.ts', 'types.ts'].includes(f)).map((f) => f.replace(/\.ts$/, ''));
    for (const r of CATALOG) expect(files, r.id).toContain(r.group);
    const suites = [...readdirSync('suites'), ...readdirSync('suites/properties')].map((f) => f.replace(/\.suite\.ts$/, ''));
    for (const group of new Set(CATALOG.map((r) => r.group))) expect(suites, `suite for ${group}`).toContain(group);
  });
});
