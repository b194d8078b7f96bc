import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { CheckContext } from '../engine/check.js';
import { finalMessage } from '../mcp/mcp-session.js';
import type { CallRecipe } from '../profile/profile.js';
import { deriveResourceTools, listTools } from '../profile/profile-derive.js';
import { isObject, textOf } from '../mcp/tool-result.js';
import { CheckFailure } from '../engine/verdict.js';
import type { WireResponse } from '../wire/client.js';

/**
 * Workspace scoping of the resources a key reaches besides blocks: "A key is workspace-scoped: one key
 * carries the context of one workspace." (service.md §Authentication 3). A check makes a resource of its own
 * with the run's key (workspace A), then, with another workspace's key (B: `--other-key`, or the one the run
 * bootstrapped), lists that kind of resource and calls each tool that takes the resource's id. B's list never
 * shows A's resource, B's calls on it are refused, and A's resource is as it was afterwards: a refusal in
 * words that was carried out all the same is a leak too. The same calls with A's key are the control that
 * the refusals come from the workspace, not from a call that never works.
 */

/** How the checks reach one kind of resource. */
export interface ScopedResource {
  /** e.g. `data source`. */
  noun: string;
  /** The variable the creator captures and the other recipes take, e.g. `dataSourceId`. */
  idVar: string;
  create: CallRecipe;
  list?: CallRecipe;
  /** Calls on one resource that read it. */
  reads: CallRecipe[];
  /** Calls on one resource that may change it. */
  writes: CallRecipe[];
  /** How the calls were found, and what is missing: observations of the check. */
  notes: string[];
}

/**
 * Data sources: "Data source | Operated through `dataSources.testConnection` and `dataSources.triggerRefresh`."
 * The profile's recipes (the derived profile's from tools/list): testConnection reads a source, triggerRefresh
 * writes one (it pulls fresh data into it).
 */
export function dataSourceCalls(c: CheckContext): ScopedResource {
  const { profile } = c.target;
  const create = profile.calls.createDataSource ?? c.notTestable(profile.gaps?.createDataSource ?? `the profile "${profile.name}" has no createDataSource call`);
  const notes: string[] = [];
  const list = profile.calls.listDataSources;
  if (!list) notes.push(`no list of data sources: ${profile.gaps?.listDataSources ?? `the profile "${profile.name}" has no listDataSources call`}`);
  const named = (tool: string): CallRecipe[] => {
    const recipe = profile.streaming[tool];
    if (!recipe) notes.push(`no ${tool} call: ${profile.gaps?.[tool] ?? `the profile "${profile.name}" has no recipe for it`}`);
    return recipe ? [recipe] : [];
  };
  return { noun: 'data source', idVar: 'dataSourceId', create, ...(list && { list }), reads: named('dataSources.testConnection'), writes: named('dataSources.triggerRefresh'), notes };
}

/**
 * Saved schedules, where the target offers them. The description names only `schedule.preview`, which keeps
 * no resource; "The server's `tools/list` is the source of truth for the tool set", so a target that offers
 * `schedules.create`, `schedules.list` or a tool taking a `scheduleId` is held to the same scoping. The
 * profile's schedule recipes when it has them, else recipes built from the target's tools/list (a profile
 * written for the reference knows of none). Offering none, the rule does not concern the target.
 */
export async function scheduleCalls(c: CheckContext): Promise<ScopedResource> {
  const { profile } = c.target;
  const base = { noun: 'schedule', idVar: 'scheduleId' };
  if (profile.calls.createSchedule) {
    const { createSchedule: create, listSchedules: list, readSchedule: read, writeSchedule: write } = profile.calls;
    return { ...base, create, ...(list && { list }), reads: read ? [read] : [], writes: write ? [write] : [], notes: [`the schedule recipes of the profile "${profile.name}"`] };
  }
  // No key to list with (bootstrap refused, a key that cannot be sent): the rows needing one say why.
  if (!c.target.apiKey && c.target.noKeyReason) c.notTestable(c.target.noKeyReason);
  const tools = await listTools(c.mcp);
  if (typeof tools === 'string') throw new CheckFailure(`tools/list, which says whether the target offers schedules, could not be read: ${tools}`, 'a tool list', tools);
  const found = deriveResourceTools(tools, 'schedule', c.settings.seed);
  if (!found) c.notApplicable('tools/list offers no schedule resource (no schedules.create, no schedules.list, no tool taking a scheduleId): schedule.preview, the one schedule tool the description names, keeps none');
  const offered = [found.create, found.list, ...found.reads, ...found.writes].filter((r): r is CallRecipe => r !== undefined).map((r) => r.tool);
  const notes = [`schedule recipes built from tools/list: ${offered.join(', ') || 'none'}`];
  if (found.skipped.length > 0) notes.push(`left out: ${found.skipped.join('; ')}`);
  if (!found.create) c.notTestable(`tools/list offers schedule tools (${[...offered, ...found.skipped].join(', ')}) but no schedules.create: no schedule of one workspace can be made to look for from another`);
  return { ...base, create: found.create, ...(found.list && { list: found.list }), reads: found.reads, writes: found.writes, notes };
}

/** A list never shows another workspace's resource, and a read of it by id is refused. */
export async function checkScopedReads(c: CheckContext, r: ScopedResource): Promise<void> {
  const otherKey = otherKeyOf(c);
  const reads = usable(c, r, r.reads);
  if (!r.list && reads.length === 0) c.notTestable(`nothing reads a ${r.noun}: ${r.notes.join('; ')}`);
  const own = await createOwn(c, r);
  if (r.list) {
    const [mine, theirs] = await Promise.all([c.mcp.recipe(r.list, { ...own.vars }), c.mcp.recipe(r.list, { ...own.vars }, { key: otherKey })]);
    c.verify(accepted(mine) && mine.text.includes(own.id), `the first key's ${r.list.tool} shows its own ${r.noun} (control)`, own.id, c.brief(mine));
    c.verify(accepted(theirs), `another workspace's key can call ${r.list.tool} for its own workspace`, 'a result', c.brief(theirs));
    const shown = [theirs.text.includes(own.id) && 'its id', theirs.text.includes(own.title) && 'its name'].filter((x): x is string => !!x);
    c.verify(shown.length === 0, `${r.list.tool} with another workspace's key shows neither the id nor the name of the first workspace's ${r.noun} (${shown.join(' and ')} shown)`, 'absent', shown);
  }
  for (const op of reads) {
    const [theirs, mine] = await Promise.all([c.mcp.recipe(op, { ...own.vars }, { key: otherKey }), c.mcp.recipe(op, { ...own.vars })]);
    c.verify(!accepted(theirs), `${op.tool} on the first workspace's ${r.noun} with another workspace's key is refused (a JSON-RPC error or a tool error)`, 'an error', c.brief(theirs));
    control(c, r, op, mine);
  }
}

/**
 * A write on another workspace's resource is refused, and the resource is unchanged for its owner; then the
 * owner's own write is carried out, and whether the owner's list shows it says whether the comparison could
 * have seen a change at all.
 */
export async function checkScopedWrites(c: CheckContext, r: ScopedResource): Promise<void> {
  const otherKey = otherKeyOf(c);
  const writes = usable(c, r, r.writes);
  if (writes.length === 0) c.notTestable(`nothing changes a ${r.noun}: ${r.notes.join('; ')}`);
  const own = await createOwn(c, r);
  const snapshot = async (): Promise<Record<string, unknown> | undefined> => {
    if (!r.list) return undefined;
    const res = await c.mcp.recipe(r.list, { ...own.vars });
    const entry = accepted(res) ? entryWithId(finalMessage(res)?.result, own.id, r.idVar) : undefined;
    c.verify(entry !== undefined, `the first key's ${r.list.tool} shows its own ${r.noun} (control)`, `an entry with the id ${own.id}`, c.brief(res));
    return entry;
  };
  const before = await snapshot();
  const theirs = await Promise.all(writes.map((op) => c.mcp.recipe(op, { ...own.vars }, { key: otherKey })));
  writes.forEach((op, i) => c.verify(!accepted(theirs[i]!), `${op.tool} on the first workspace's ${r.noun} with another workspace's key is refused (a JSON-RPC error or a tool error)`, 'an error', c.brief(theirs[i]!)));
  const tried = writes.map((op) => op.tool).join(', ');
  if (!r.list) c.observe(`no list of ${r.noun}s: only the refusals were judged, not that the ${r.noun} is unchanged`);
  const after = await snapshot();
  if (r.list) {
    c.verify(isDeepStrictEqual(before, after), `the ${r.noun} is unchanged for its owner after the other key's refused ${tried} (changed: ${changed(before, after)})`, before, after);
  }
  // The control: the owner's own write is carried out (one write: a second could find the first undone it).
  const op = writes[0]!;
  control(c, r, op, await c.mcp.recipe(op, { ...own.vars }));
  if (r.list) {
    const later = await snapshot();
    c.observe(isDeepStrictEqual(after, later)
      ? `${r.list.tool} shows no trace of the first key's own ${op.tool}: the comparison above could not have seen a change`
      : `${r.list.tool} shows the first key's own ${op.tool} (changed: ${changed(after, later)}): the comparison above would have seen one`);
  }
}

/** Whether the request was carried out: a 2xx with a JSON-RPC result that is not a tool error. */
function accepted(res: WireResponse): boolean {
  const m = finalMessage(res);
  return res.status >= 200 && res.status < 300 && isObject(m?.result) && m.result.isError !== true;
}

function otherKeyOf(c: CheckContext): string {
  return c.target.otherKey ?? c.notTestable(c.target.noOtherKeyReason ?? 'no key of a second workspace for this target (give one with --other-key)');
}

/** The calls that can judge scoping: those taking the resource's id, and not failing by design. */
function usable(c: CheckContext, r: ScopedResource, recipes: CallRecipe[]): CallRecipe[] {
  for (const note of r.notes) c.observe(note);
  return recipes.filter((op) => {
    if (!JSON.stringify(op.arguments).includes(`{{${r.idVar}}}`)) c.observe(`${op.tool}: its recipe does not take {{${r.idVar}}}, so it cannot name the check's ${r.noun}: not judged`);
    else if (op.expectError) c.observe(`${op.tool}: its recipe fails by design (expectError), so a refusal would prove nothing: not judged`);
    else return true;
    return false;
  });
}

/** A resource of the check's own, created with the run's key under a unique name. */
async function createOwn(c: CheckContext, r: ScopedResource): Promise<{ vars: Record<string, unknown>; id: string; title: string }> {
  // A recipe that captures no id is the profile's (the user's) gap, not the service's failure.
  if (!r.create.capture?.[r.idVar]) c.notTestable(`the ${r.create.tool} recipe captures no ${r.idVar}, so the ${r.noun} it creates cannot be named`);
  const title = `scoping probe ${randomBytes(6).toString('hex')}`;
  const vars: Record<string, unknown> = { title };
  const created = await c.mcp.recipe(r.create, vars);
  const id = vars[r.idVar];
  c.verify(accepted(created) && (typeof id === 'string' || typeof id === 'number'), `the ${r.noun} is created with the first key (${r.create.tool})`, `a result holding the ${r.noun}'s id`, c.brief(created));
  return { vars, id: String(id), title };
}

function control(c: CheckContext, r: ScopedResource, op: CallRecipe, res: WireResponse): void {
  c.verify(accepted(res), `${op.tool} on its own ${r.noun} with the first key is carried out (control: the other key's refusal must come from the workspace, not from a call that never works)`, 'a result', c.brief(res));
}

/** The object of a tool result carrying this id (as `id` or `<resource>Id`), anywhere in it. */
function entryWithId(result: unknown, id: string, idVar: string): Record<string, unknown> | undefined {
  let value = isObject(result) ? result.structuredContent : undefined;
  if (value === undefined) {
    try {
      value = JSON.parse(textOf(result));
    } catch {
      return undefined;
    }
  }
  const names = new Set(['id', idVar.toLowerCase()]);
  const walk = (v: unknown, depth: number): Record<string, unknown> | undefined => {
    if (depth > 8) return undefined;
    const children = Array.isArray(v) ? v : isObject(v) ? Object.values(v) : [];
    if (isObject(v) && Object.entries(v).some(([k, x]) => names.has(k.toLowerCase()) && (typeof x === 'string' || typeof x === 'number') && String(x) === id)) return v;
    for (const x of children) {
      const found = walk(x, depth + 1);
      if (found) return found;
    }
    return undefined;
  };
  return walk(value, 0);
}

/** The fields that differ between two entries, for a message. */
function changed(before: Record<string, unknown> | undefined, after: Record<string, unknown> | undefined): string {
  if (!before || !after) return after ? 'it appeared' : 'it is gone';
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !isDeepStrictEqual(before[k], after[k]));
  return fields.join(', ') || 'nothing';
}
