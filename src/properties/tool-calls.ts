import { followPages, listed } from '../wire/list-pages.js';
import fc from 'fast-check';
import type { CheckContext } from '../engine/check.js';
import type { Revision } from '../catalog/types.js';
import { finalMessage } from '../mcp/mcp-session.js';
import { passedDeadline, type WireResponse } from '../wire/client.js';
import { isObject } from '../mcp/tool-result.js';
import { invalidValues, schemaValidator, validValues, type InvalidValue, type SchemaValidator } from './schema-arbitrary.js';
import { noValidArguments, searchValue, type SearchBounds } from './value-search.js';
import { freshKey } from './workspaces.js';
import type { TargetInfo } from '../targets/target-info.js';

/**
 * tools/call as the tool argument properties (suites/properties/tool-arguments.suite.ts) make them: the tools
 * `tools/list` returns with compiled input schemas, calls with arguments generated from those schemas (valid
 * ones, or spoiled once), sent under a revision, and the reply's JSON-RPC response.
 */

const MODERN: Revision = '2026-07-28';
/** Runs that end in a streaming tool cost its steps (~160 ms on the embedded target): weigh them down. */
const STREAMING_WEIGHT = 1;
const PLAIN_WEIGHT = 4;
/** Each tool's search for one valid value before the valid-arguments property: short, the property has its own time box. */
export const AIM_SEARCH: SearchBounds = { deadlineMs: 250, maxTries: 400 };

export interface Tool {
  name: string;
  /** The tool says it does not modify its environment (annotations.readOnlyHint). */
  readOnly: boolean;
  schema: Record<string, unknown>;
  validate: SchemaValidator;
  streaming: boolean;
  /** A valid value the search found after the generator missed: mixed into its arguments, so runs are not all skipped. */
  found?: unknown;
}

export interface Call {
  tool: string;
  args: unknown;
  revision: Revision | undefined;
  /** What was spoiled, for invalid arguments. */
  mutation?: string;
}

/** A call as sent (long arguments cut), for labels and counterexamples. */
export function showCall(call: Call): string {
  const args = JSON.stringify(call.args);
  return `${call.tool} ${args.length > 400 ? `${args.slice(0, 400)}… (${args.length} chars)` : args}${call.mutation ? ` [${call.mutation}]` : ''}${call.revision ? ` under ${call.revision}` : ''}`;
}

export interface ToolSetup {
  key: string | null;
  tools: Tool[];
  hints: Record<string, unknown[]>;
}

/**
 * A key of the check's own, the listed tools with compiled schemas, and values the profile's setup captured
 * (a real block id, say) to mix into arguments of the same name, so valid runs reach past "not found".
 */
export async function prepareTools(c: CheckContext, purpose: string): Promise<ToolSetup> {
  const key = c.target.admin || c.target.canBootstrap || c.target.apiKey ? await freshKey(c, purpose) : null;
  const pages = await followPages(async (cursor) => {
    const res = await c.mcp.request('tools/list', cursor === undefined ? undefined : { cursor }, { key });
    const result = finalMessage(res)?.result;
    c.verify(isObject(result) && Array.isArray(result.tools), 'tools/list returns tools', 'a tools array', c.brief(res));
    return result;
  });
  const streamingNames = new Set([...Object.keys(c.target.profile.streaming), ...Object.values(c.target.profile.streaming).map((r) => r.tool)]);
  const tools: Tool[] = [];
  for (const t of listed(pages).filter(isObject)) {
    if (typeof t.name !== 'string' || !isObject(t.inputSchema)) continue;
    try {
      tools.push({ name: t.name, readOnly: isObject(t.annotations) && t.annotations.readOnlyHint === true, schema: t.inputSchema, validate: schemaValidator(t.inputSchema), streaming: streamingNames.has(t.name) });
    } catch (err) {
      c.observe(`${t.name}: its inputSchema does not compile (${(err as Error).message}); left out (tools-input-schema-compiles says so)`);
    }
  }
  if (tools.length === 0) c.notTestable('tools/list lists no tool with a usable inputSchema');
  const safe = onDeployment(c.target) ? safeTools(c, tools) : tools;
  const vars: Record<string, unknown> = {};
  for (const recipe of c.target.profile.setup) await c.mcp.recipe(recipe, vars, { key });
  const hints = Object.fromEntries(Object.entries(vars).filter(([, v]) => v !== undefined).map(([k, v]) => [k, [v]]));
  if (Object.keys(hints).length > 0) c.observe(`values from the profile's setup mixed into arguments of the same name: ${Object.keys(hints).join(', ')}`);
  return { key, tools: safe, hints };
}

/** A server the harness did not start: whatever a call changes there stays changed. */
export function onDeployment(info: TargetInfo): boolean {
  return info.kind === 'url';
}

/**
 * On a deployment, only tools a call cannot harm: those the profile names (their recipes say what a call does)
 * and those that say they are read-only ("readOnlyHint: If true, the tool does not modify its environment").
 * The others are left out, observed; none left, the check is not testable.
 */
function safeTools(c: CheckContext, tools: Tool[]): Tool[] {
  const profile = c.target.profile;
  const named = new Set([...profile.setup, ...Object.values(profile.streaming), ...Object.values(profile.calls)].filter((r) => r !== undefined).map((r) => r.tool));
  const safe = tools.filter((t) => t.readOnly || named.has(t.name));
  const left = tools.filter((t) => !safe.includes(t)).map((t) => t.name);
  if (left.length > 0) c.observe(`left out on a deployment, as a call could change it: ${left.join(', ')} (neither readOnlyHint nor named by the profile)`);
  if (safe.length === 0) c.notTestable(`on a deployment the harness calls only tools that declare readOnlyHint or that the profile names, and none of ${tools.map((t) => t.name).join(', ')} does`);
  return safe;
}

/**
 * The schema's smallest instance as fast-check orders values (numbers near their lower bound or 0, short
 * strings, optional members left out): the value it shrinks a generated valid value to. Undefined when no valid
 * value is found within AIM_SEARCH's tries.
 */
export function smallestInstance(t: Tool, hints: Record<string, unknown[]>, seed: number): unknown {
  const details = fc.check(fc.property(validValues(t.schema, { hints }), (v) => !t.validate(v)), { seed, numRuns: AIM_SEARCH.maxTries });
  return details.failed && details.counterexample ? details.counterexample[0] : t.found;
}

/** tools/call under a revision: no header, a 2025-era MCP-Protocol-Version, or the 2026-07-28 wire (_meta and Mcp-* headers). */
export async function callTool(c: CheckContext, s: ToolSetup, call: Call): Promise<{ res: WireResponse; id: number }> {
  const id = c.run.ids.next();
  // The user's --timeout, on our own server too: a shorter deadline found hangs sooner, but on a slow or busy
  // machine it also ended searches on replies that were merely late, and the mutants they search for went uncaught.
  const timeoutMs = c.settings.timeoutMs;
  const params: Record<string, unknown> = { name: call.tool, arguments: call.args };
  let headers: Record<string, string> = {};
  if (call.revision === MODERN) {
    params._meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
    headers = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': call.tool };
  } else if (call.revision) headers = { 'mcp-protocol-version': call.revision };
  let res: WireResponse;
  try {
    res = await c.mcp.post({ jsonrpc: '2.0', id, method: 'tools/call', params }, { key: s.key, headers, timeoutMs });
  } catch (err) {
    if (!passedDeadline(err)) return c.verify(false, `${showCall(call)} is answered`, 'a reply', (err as Error).message) as never;
    await cancel(c, s, id, headers, timeoutMs);
    // The deadline is the harness's choice: a tool that takes longer has broken no rule.
    return c.notTestable(`${showCall(call)} was not answered within ${timeoutMs} ms, the harness's deadline (notifications/cancelled sent): a slow call proves no protocol error`);
  }
  // A stream still open at the deadline: the call goes on at the server unless it is told.
  if (stillRunning(res, id)) await cancel(c, s, id, headers, timeoutMs);
  return { res, id };
}

/** A stream still open at the deadline without the call's result: the call was still running (a long operation). */
export function stillRunning(res: WireResponse, id: number): boolean {
  return res.mediaType === 'text/event-stream' && !res.closed && finalMessage(res)?.id !== id;
}

/** The call's notifications/cancelled, on the call's wire (2026-07-28 names the notification in Mcp-Method). */
function cancel(c: CheckContext, s: ToolSetup, id: number, headers: Record<string, string>, timeoutMs: number): Promise<void> {
  const wire = headers['mcp-method'] ? { 'mcp-protocol-version': MODERN, 'mcp-method': 'notifications/cancelled' } : headers;
  return c.mcp.cancel(id, `the harness's deadline of ${timeoutMs} ms passed`, { key: s.key, headers: wire });
}

/** The reply's final message: a JSON-RPC response to the call, not a server error. */
export function reply(c: CheckContext, call: Call, res: WireResponse, id: number): any {
  c.verify(res.status < 500, `${showCall(call)} is not answered with a server error`, '< 500', c.brief(res));
  const msg = finalMessage(res);
  c.verify(isObject(msg) && msg.id === id && ('result' in msg || 'error' in msg), `${showCall(call)} gets a JSON-RPC response to it`, { id, 'result | error': '...' }, c.brief(res));
  return msg;
}

/**
 * The tools whose valid arguments can be found: a seeded search of AIM_SEARCH's bounds each, before the
 * property (whose runs skip what the judge refuses, and fail when all are skipped). A tool with none found
 * is left out, observed with the reason; when no tool is left the check is not testable with the reasons.
 */
export function withValidArguments(c: CheckContext, s: ToolSetup): ToolSetup {
  const tools: Tool[] = [];
  const missing: string[] = [];
  for (const t of s.tools) {
    const outcome = searchValue(validValues(t.schema, { hints: s.hints }), (v) => t.validate(v), c.settings.seed, AIM_SEARCH, (v) => t.validate.errors(v));
    if (!outcome.found) {
      const why = noValidArguments(t.name, outcome, AIM_SEARCH);
      missing.push(why);
      c.observe(`${why}: left out of the search`);
      continue;
    }
    tools.push(outcome.tries > 1 ? { ...t, found: outcome.value } : t);
  }
  if (tools.length === 0) c.notTestable(missing.join('; '));
  return { ...s, tools };
}

/** Valid arguments of a tool, the tool picked with streaming ones weighed down. */
export function validCalls(s: ToolSetup, revisions: (Revision | undefined)[]): fc.Arbitrary<Call> {
  return fc.oneof(...s.tools.map((t) => {
    const generated = validValues(t.schema, { hints: s.hints });
    const args = t.found === undefined ? generated : fc.oneof({ arbitrary: generated, weight: 4 }, { arbitrary: fc.constant(t.found), weight: 1 });
    return {
      weight: t.streaming ? STREAMING_WEIGHT : PLAIN_WEIGHT,
      arbitrary: fc.record({ args, revision: fc.constantFrom(...revisions) }).map(({ args: a, revision }) => ({ tool: t.name, args: a, revision })),
    };
  }));
}

/**
 * Invalid arguments of a tool (refused at validation, before any streaming step: every tool weighs the same).
 * A tool whose spoiled values the judge never refuses within AIM_SEARCH (a pattern every string matches,
 * say) is left out, observed.
 */
function invalidCalls(c: CheckContext, s: ToolSetup, revisions: (Revision | undefined)[]): fc.Arbitrary<Call> | undefined {
  const spoilable: { t: Tool; bad: fc.Arbitrary<InvalidValue> }[] = [];
  for (const t of s.tools) {
    const bad = invalidValues(t.schema, { hints: s.hints });
    if (!bad) continue;
    const outcome = searchValue(bad, (v) => !t.validate(v.value), c.settings.seed, AIM_SEARCH);
    if (outcome.found) spoilable.push({ t, bad });
    else c.observe(`no invalid arguments found for ${t.name} within ${AIM_SEARCH.deadlineMs} ms (${outcome.tries} spoiled values, all valid): left out of the search`);
  }
  if (spoilable.length === 0) return undefined;
  return fc.oneof(...spoilable.map(({ t, bad }) => fc.record({ bad, revision: fc.constantFrom(...revisions) })
    .map(({ bad: b, revision }) => ({ tool: t.name, args: b.value, mutation: b.mutation, revision }))));
}

/**
 * A property over calls whose arguments the inputSchema refuses (judged by ajv again, per run), sent under
 * `revisions`; `judge` says what the reply must be.
 */
export async function invalidArgumentsProperty(c: CheckContext, id: string, revisions: (Revision | undefined)[], judge: (call: Call, msg: any) => void): Promise<void> {
  const s = await prepareTools(c, id);
  const byName = new Map(s.tools.map((t) => [t.name, t]));
  const calls = invalidCalls(c, s, revisions);
  if (!calls) return c.notTestable('no listed tool has an inputSchema that refuses anything the harness can build');
  await c.property({
    id,
    arbitrary: calls,
    show: showCall,
    predicate: async (call) => {
      const tool = byName.get(call.tool)!;
      fc.pre(!tool.validate(call.args));
      const { res, id: callId } = await callTool(c, s, call);
      judge(call, reply(c, call, res, callId));
    },
  });
}
