import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayInvocation } from '../../src/kit/invocation.js';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';

// Issue 36: from an installed package the replay line said `mcp-canvas-harness conformance ...`, "command not
// found" when pasted. The line is what runs where the person is.
describe('the replay line of each invocation', () => {
  it('a checkout: the npm script, whether run through npm or the executable', () => {
    expect(replayInvocation('conformance', PACKAGE_ROOT, false)).toBe('npm run conformance --');
    expect(replayInvocation('conformance', PACKAGE_ROOT, true)).toBe('npm run conformance --');
  });

  it('an installed package (no sources beside dist/), through npx or node_modules/.bin: npx and the executable', () => {
    const installed = mkdtempSync(join(tmpdir(), 'installed-'));
    try {
      expect(replayInvocation('conformance', installed, true)).toBe('npx mcp-canvas-harness conformance');
    } finally {
      rmSync(installed, { recursive: true, force: true });
    }
  });
});
