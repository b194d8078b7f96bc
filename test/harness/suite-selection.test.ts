import { describe, expect, it } from 'vitest';
import { selectRequirements } from '../../src/run.js';
import { allSuiteFiles, suiteFiles, suiteNames } from '../../src/suite-selection.js';

/** A narrow --only loads its groups' suites and the suites naming a selected id, and nothing else. */
describe('suite selection', () => {
  const files = (only: string[]) => suiteFiles(only, selectRequirements(only, 'service'));

  it('a full run loads every suite', () => {
    expect(files([])).toEqual(['suites/**/*.suite.ts']);
    expect(allSuiteFiles()).toContain('suites/properties/model.suite.ts');
  });

  it('a scenario-only row loads its group suite and no property suite', () => {
    expect(files(['auth-missing-key-401'])).toEqual(['suites/auth.suite.ts']);
  });

  it('a row a property checks also loads that property suite', () => {
    expect(files(['auth-altered-key-401'])).toEqual(['suites/auth.suite.ts', 'suites/properties/auth.suite.ts']);
    expect(files(['model-created-block-listed'])).toContain('suites/properties/model.suite.ts');
  });

  it('an id is named only as a whole literal', () => {
    expect(suiteNames('suites/properties/auth.suite.ts', 'auth-altered-key-401')).toBe(true);
    expect(suiteNames('suites/properties/auth.suite.ts', 'auth-altered-key')).toBe(false);
    expect(suiteNames('suites/properties/auth.suite.ts', 'auth-missing-key-401')).toBe(false);
  });
});
