import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SCENARIOS, type LoadRequest } from '../../load/scenarios.js';
import { loadProfile } from '../../src/profile/profile.js';

// load/scenarios.ts writes its arguments down (it is plain for k6: no I/O, so it cannot read the profile);
// they must stay copies of the reference profile's recipes, as its header says.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const profile = loadProfile('reference', ROOT);
const requests: LoadRequest[] = SCENARIOS.flatMap((s) => s.requests);
const calls = requests.filter((r) => r.body.method === 'tools/call');

function call(tool: string): { name: unknown; arguments: unknown } {
  const found = calls.find((r) => r.body.params?.name === tool);
  if (!found) throw new Error(`no scenario calls ${tool}`);
  return found.body.params as { name: unknown; arguments: unknown };
}

describe('the load scenarios call the tools as the reference profile does', () => {
  it('schedule.preview: the profile\'s streaming recipe', () => {
    const recipe = profile.streaming['schedule.preview']!;
    expect(call('schedule.preview').name).toBe(recipe.tool);
    expect(call('schedule.preview').arguments).toEqual(recipe.arguments);
  });

  it('blocks.list: the profile\'s listBlocks recipe, plus the published filter the description shows', () => {
    const recipe = profile.calls.listBlocks!;
    expect(call('blocks.list').name).toBe(recipe.tool);
    expect(call('blocks.list').arguments).toEqual({ ...recipe.arguments, published: true });
  });

  it('workspace.get: no arguments (the profile has no recipe for it)', () => {
    expect([...Object.values(profile.streaming), ...Object.values(profile.calls), ...profile.setup].some((r) => r?.tool === 'workspace.get')).toBe(false);
    expect(call('workspace.get').arguments).toEqual({});
  });

  it('calls no other tool, and every scenario sends the same copy of a request', () => {
    expect([...new Set(calls.map((r) => r.body.params?.name))].sort()).toEqual(['blocks.list', 'schedule.preview', 'workspace.get']);
    for (const r of requests) expect(r.body, r.name).toEqual(requests.find((x) => x.name === r.name)!.body);
  });
});
