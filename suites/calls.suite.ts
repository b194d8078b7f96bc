import { isDeepStrictEqual } from 'node:util';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { type CheckContext, defineSuite } from '../src/engine/check.js';
import { finalMessage, McpSession } from '../src/mcp/mcp-session.js';
import { fill, type CallRecipe } from '../src/profile/profile.js';
import { findId, listTools } from '../src/profile/profile-derive.js';
import { admittedTypes, type JsonType } from '../src/properties/schema-resolve.js';
import { bootstrapWorkspace } from '../src/judging/fresh-workspace.js';
import type { WireResponse } from '../src/wire/client.js';
import type { Exchange } from '../src/wire/exchange.js';
import { isObject, listedItems, textOf } from '../src/mcp/tool-result.js';
import { capBound, describeCapBound, describePlan } from '../src/profile/limits.js';
import { jsonSnippet } from '../src/kit/text.js';
import { BoundedCache } from '../src/kit/bounded-cache.js';

const { check, describe, seal } = defineSuite('calls');

const MODERN = '2026-07-28';
const SEP_1303 = '2025-11-25';
/** Plan-cap probe: creates sent in concurrent waves, at most CAP_BOUND in all when no cap is declared. */
const CAP_WAVE = 15;
const CAP_BOUND = 45;
/** With a declared cap the fill goes one past its bound (src/profile/limits.ts capBound), but never past this many creates. */
const CAP_DECLARED_MAX = 300;
const CONTENT_TYPES = ['text', 'image', 'audio', 'resource_link', 'resource'];

const listBlocks = (c: CheckContext): CallRecipe => c.target.profile.calls.listBlocks ?? { tool: 'blocks.list', arguments: {} };

/** The tools/list listing, every page (a tool these checks call may be on any of them), by name. */
async function toolsByName(c: CheckContext, mcp = c.mcp): Promise<Map<string, any>> {
  // No key to list with (bootstrap refused, a key that cannot be sent): the rows needing one say why.
  if (mcp === c.mcp && !c.target.apiKey && c.target.noKeyReason) c.notTestable(c.target.noKeyReason);
  const tools = await listTools(mcp);
  c.verify(typeof tools !== 'string', 'tools/list returns tools', 'a tools array', tools);
  return new Map((tools as any[]).filter(isObject).map((t: any) => [t.name, t]));
}

/**
 * A workspace of the check's own, bootstrapped, so that creating blocks neither disturbs nor is disturbed by
 * other checks on the shared workspace. Its key is redacted in the wire log like the target's keys.
 */
async function ownWorkspace(c: CheckContext, purpose: 'plan-cap' | 'published-filter'): Promise<McpSession | undefined> {
  const secrets: string[] = [];
  const own = await bootstrapWorkspace(c.run, c.target, secrets, purpose);
  c.http.log.push(...own.exchanges);
  if (!own.key) {
    c.observe(`no workspace of its own: ${own.note}`);
    return undefined;
  }
  const apiKey = own.key;
  c.addSecret(apiKey);
  const t = c.target;
  const http = c.http.sibling(c.http.log, () => [t.apiKey, t.otherKey, t.revokedKey, apiKey].filter((k): k is string => !!k));
  c.observe(`ran in a workspace bootstrapped for this check (${purpose})`);
  return new McpSession(http, { ...t, apiKey });
}

/** A listed block's id, found by name as the derived profile captures it (`id`, `blockId`, `block.id`); else the item itself. */
const itemKey = (item: unknown): string => {
  const id = isObject(item) ? findId(item, 'block') : undefined;
  return id !== undefined ? String(id) : JSON.stringify(item);
};

/** Keys of the blocks `blocks.list` returns, optionally filtered on `published`. */
async function listKeys(c: CheckContext, mcp: McpSession, published?: boolean): Promise<string[]> {
  const recipe = listBlocks(c);
  const args = { ...(fill(recipe.arguments, {}) as Record<string, unknown>), ...(published !== undefined && { published }) };
  const res = await mcp.call(recipe.tool, args);
  const msg = finalMessage(res);
  c.verify(isObject(msg?.result) && msg.result.isError !== true, `${recipe.tool} ${JSON.stringify(args)} succeeds`, 'a result', c.brief(res));
  const items = listedItems(msg.result);
  c.verify(items !== undefined, `${recipe.tool} returns a list of blocks`, 'an array in structuredContent', msg.result);
  return items!.map(itemKey);
}

/** Successful calls whose results the result checks look at: blocks.list with and without the filter, and read-only recipes without variables. */
async function sampleCalls(c: CheckContext): Promise<{ tool: string; res: WireResponse }[]> {
  const tools = await toolsByName(c);
  const list = listBlocks(c);
  const calls: { tool: string; args: Record<string, unknown> }[] = [
    { tool: list.tool, args: list.arguments },
    { tool: list.tool, args: { ...list.arguments, published: true } },
    { tool: list.tool, args: { ...list.arguments, published: false } },
  ];
  for (const recipe of Object.values(c.target.profile.streaming)) {
    if (!JSON.stringify(recipe.arguments).includes('{{') && tools.get(recipe.tool)?.annotations?.readOnlyHint === true) calls.push({ tool: recipe.tool, args: recipe.arguments });
  }
  return Promise.all(calls.map(async ({ tool, args }) => ({ tool, res: await c.mcp.call(tool, args) })));
}

/** What is wrong with a CallToolResult, per the 2025-11-25 schema. */
function resultProblems(result: unknown): string[] {
  if (!isObject(result)) return ['the result is not an object'];
  const problems: string[] = [];
  if (!Array.isArray(result.content)) problems.push('content is not an array');
  else {
    result.content.forEach((item: any, i: number) => {
      if (!isObject(item) || !CONTENT_TYPES.includes(item.type)) problems.push(`content[${i}] has no known type (${CONTENT_TYPES.join(', ')})`);
      else if (item.type === 'text' && typeof item.text !== 'string') problems.push(`content[${i}].text is not a string`);
      else if ((item.type === 'image' || item.type === 'audio') && (typeof item.data !== 'string' || typeof item.mimeType !== 'string')) problems.push(`content[${i}] lacks string data and mimeType`);
      else if (item.type === 'resource_link' && (typeof item.uri !== 'string' || typeof item.name !== 'string')) problems.push(`content[${i}] lacks string uri and name`);
      else if (item.type === 'resource' && !(isObject(item.resource) && typeof item.resource.uri === 'string')) problems.push(`content[${i}].resource lacks a uri`);
    });
  }
  if ('isError' in result && typeof result.isError !== 'boolean') problems.push('isError is not a boolean');
  if ('structuredContent' in result && !isObject(result.structuredContent)) problems.push('structuredContent is not an object');
  return problems;
}

const validators = new Map<string, Ajv | Ajv2020>();
/** Compiled outputSchemas by their text: every call of a tool, in every check and run of a process, meets the same one. */
const compiledOutputs = new BoundedCache<ValidateFunction>(256);

/** Validates against an outputSchema in its dialect (2020-12 unless `$schema` says draft-07); one validator per dialect. */
function validateOutput(schema: Record<string, any>, value: unknown): { ok: boolean; errors: string } {
  const dialect = typeof schema.$schema === 'string' && schema.$schema.includes('draft-07') ? 'draft-07' : '2020-12';
  let ajv = validators.get(dialect);
  if (!ajv) {
    ajv = dialect === 'draft-07' ? new Ajv({ strict: false, allErrors: true }) : new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    validators.set(dialect, ajv);
  }
  const compiler = ajv;
  try {
    const validate = compiledOutputs.get(`${dialect} ${JSON.stringify(schema)}`, () => compiler.compile(schema));
    return { ok: validate(value) as boolean, errors: compiler.errorsText(validate.errors) };
  } catch (err) {
    return { ok: false, errors: `the outputSchema does not compile: ${(err as Error).message}` };
  } finally {
    ajv.removeSchema(schema);
  }
}

/**
 * A value of a JSON type the property schema does not admit, read through `$ref`s, `allOf` and unions
 * (pydantic's `anyOf: [T, null]`); undefined when it admits every type.
 */
function wrongValue(prop: unknown, root: unknown): unknown {
  const types = isObject(prop) ? admittedTypes(prop, isObject(root) ? root : {}) : undefined;
  if (!types || types.length === 0) return undefined;
  if (types.length === 1) {
    switch (types[0]) {
      case 'string': return 12345;
      case 'integer':
      case 'number': return 'not a number';
      case 'boolean': return 'yes';
      case 'array': return 'not an array';
      case 'object': return 'not an object';
      default: return undefined;
    }
  }
  const admitted = (t: JsonType) => types.includes(t) || (t === 'integer' && types.includes('number'));
  return ([['integer', 12345], ['string', 'not a value of this type'], ['object', {}], ['boolean', true]] as const).find(([t]) => !admitted(t))?.[1];
}

/** Rejected as invalid: a tool execution error (isError) or a -32602 protocol error; never a success, a 5xx or -32603. */
function rejection(res: WireResponse): 'tool-error' | 'invalid-params' | string {
  const msg = finalMessage(res);
  if (res.status >= 500) return `HTTP ${res.status}`;
  if (msg?.result?.isError === true) return 'tool-error';
  if (msg?.error?.code === -32602) return 'invalid-params';
  if (msg?.error) return `JSON-RPC error ${msg.error.code}`;
  if (msg?.result) return 'a success result';
  return `HTTP ${res.status} without a JSON-RPC reply`;
}

interface CapFill {
  before: number;
  after: number;
  created: number;
  /** The fill workspace's plan (the bootstrap plan) and its declared cap, when declared. */
  declared?: { plan: string; maxBlocks: number };
  /** Why the cap is not held to a declared number (then the fill stops at CAP_BOUND creates). */
  undeclared?: string;
  /** Creates the fill would send at most. */
  bound: number;
  refusal?: WireResponse;
  /** Why there was no workspace to fill (then nothing else is set). */
  noWorkspace?: string;
  exchanges: Exchange[];
  notes: string[];
  secrets: string[];
}

/** One fill serves both plan-cap checks: a workspace filled to its cap costs a bootstrap and a cap of blocks. */

/** Creates blocks in a fresh workspace in concurrent waves until one is refused (bounded), counting before and after. */
async function fillToCap(c: CheckContext): Promise<CapFill> {
  const create = c.target.profile.calls.createBlock;
  if (!create) return c.notTestable(c.target.profile.gaps?.createBlock ?? 'the profile has no createBlock recipe');
  const cap = await c.run.once('plan-cap fill', () => runFill(c, create));
  c.http.log.push(...cap.exchanges);
  for (const s of cap.secrets) c.addSecret(s);
  for (const n of cap.notes) c.observe(n);
  if (cap.noWorkspace) c.notTestable(cap.noWorkspace);
  return cap;
}

async function runFill(c: CheckContext, create: CallRecipe): Promise<CapFill> {
  const cap: CapFill = { before: 0, after: 0, created: 0, bound: CAP_BOUND, exchanges: [], notes: [], secrets: [] };
  // A bootstrapped workspace is on the bootstrap plan: its declared cap, if any, is the one held to.
  const { limits } = c.target;
  const plan = limits?.bootstrapPlan;
  const maxBlocks = plan ? limits?.plans[plan]?.maxBlocks : undefined;
  if (plan && maxBlocks !== undefined) cap.declared = { plan, maxBlocks };
  else cap.undeclared = plan ? `${describePlan(plan, limits?.plans[plan])} (the bootstrap plan) declares no cap` : 'no plan is declared for the workspaces the bootstrap endpoint creates (limits.bootstrapPlan)';
  // The fill records into its own log; each check copies it into its evidence.
  const shared: CheckContext = { ...c, http: c.http.sibling(cap.exchanges, () => c.secrets()), observe: (n) => cap.notes.push(n), addSecret: (s) => cap.secrets.push(s) };
  const mcp = await ownWorkspace(shared, 'plan-cap');
  if (!mcp) return { ...cap, noWorkspace: 'filling a workspace to its plan cap needs a workspace of its own (bootstrap), or it would disturb other checks on the shared one' };
  cap.before = (await listKeys(shared, mcp)).length;
  // Declared: one create past the bound proves the cap absent; the waves never overshoot it.
  if (cap.declared) cap.bound = Math.min(CAP_DECLARED_MAX, Math.max(0, capBound(cap.declared.maxBlocks) - cap.before + 1));
  for (let sent = 0; sent < cap.bound && !cap.refusal; sent += CAP_WAVE) {
    const wave = Math.min(CAP_WAVE, cap.bound - sent);
    const replies = await Promise.all(Array.from({ length: wave }, (_, i) => mcp.recipe(create, { title: `conformance cap ${sent + i + 1}` })));
    for (const res of replies) {
      const msg = finalMessage(res);
      if (res.status === 200 && isObject(msg?.result) && msg.result.isError !== true) cap.created += 1;
      else cap.refusal ??= res;
    }
  }
  cap.after = (await listKeys(shared, mcp)).length;
  cap.notes.push(cap.declared
    ? `declared: ${describePlan(cap.declared.plan, limits!.plans[cap.declared.plan])} (the bootstrap plan; ${limits!.sources.join(', ')}); fill bound: ${describeCapBound(cap.declared.maxBlocks)} blocks, so at most ${cap.bound} create(s)`
    : `no declared cap (${cap.undeclared}): at most ${CAP_BOUND} creates`);
  cap.notes.push(`${cap.before} block(s) before; ${cap.created} create(s) succeeded; ${cap.after} block(s) listed after${cap.refusal ? `; refused with: ${jsonSnippet(finalMessage(cap.refusal))}` : ''}`);
  return cap;
}

describe('calls', () => {
  // "A normal tool call gets a single JSON-RPC reply." "All other tools reply with one JSON-RPC reply."
  check({ ids: 'calls-non-streaming-json', name: 'non-streaming tools answer application/json with one JSON-RPC reply', run: async (c) => {
    const list = listBlocks(c);
    const calls: [string, Record<string, unknown>][] = [[list.tool, list.arguments], [list.tool, { ...list.arguments, published: true }], [list.tool, { ...list.arguments, published: false }]];
    const publish = c.target.profile.calls.publishBlock;
    if (publish) calls.push([publish.tool, fill(publish.arguments, { blockId: 'conformance-no-such-block' }) as Record<string, unknown>]);
    await Promise.all(calls.map(async ([tool, args], i) => {
      const id = `json-${i}`;
      const res = await c.mcp.call(tool, args, { id });
      c.verify(res.status === 200 && res.mediaType === 'application/json', `${tool} ${JSON.stringify(args)} answers 200 application/json`, '200 application/json', c.brief(res));
      c.verify(isObject(res.json) && res.json.id === id && ('result' in res.json || 'error' in res.json), `${tool}: the body is one JSON-RPC reply to the request`, { id, result: '...' }, res.json ?? res.text.slice(0, 300));
    }));
  } });

  // CallToolResult: `content: ContentBlock[]`; `isError?: boolean`; `structuredContent?: { [key: string]: unknown }`.
  check({ ids: 'calls-result-shape', name: 'tool results have a content array of known blocks and a boolean isError', run: async (c) => {
    const samples = await sampleCalls(c);
    const publish = c.target.profile.calls.publishBlock;
    if (publish) samples.push({ tool: publish.tool, res: await c.mcp.call(publish.tool, fill(publish.arguments, { blockId: 'conformance-no-such-block' }) as Record<string, unknown>) });
    const list = listBlocks(c);
    if (c.target.revisions.includes(SEP_1303)) {
      samples.push({ tool: list.tool, res: await c.mcp.call(list.tool, { ...list.arguments, published: 'yes' }, { headers: { 'mcp-protocol-version': SEP_1303 } }) });
    }
    let checked = 0;
    for (const { tool, res } of samples) {
      const msg = finalMessage(res);
      if (!msg || !('result' in msg)) continue;
      checked += 1;
      const problems = resultProblems(msg.result);
      c.verify(problems.length === 0, `${tool}: ${problems.join('; ')}`, 'a CallToolResult', msg.result);
    }
    c.verify(checked > 0, 'at least one call returned a result', '>= 1 result', samples.map((s) => c.brief(s.res)));
  } });

  // "If an output schema is provided: Servers **MUST** provide structured results that conform to this schema."
  check({ ids: 'calls-structured-content-schema', name: 'structuredContent conforms to the declared outputSchema', run: async (c) => {
    const [tools, samples] = await Promise.all([toolsByName(c), sampleCalls(c)]);
    let checked = 0;
    const unanswered: string[] = [];
    for (const { tool, res } of samples) {
      const schema = tools.get(tool)?.outputSchema;
      const result = finalMessage(res)?.result;
      if (isObject(schema) && (!isObject(result) || result.isError === true)) unanswered.push(tool);
      if (!isObject(schema) || !isObject(result) || result.isError === true) continue;
      checked += 1;
      c.verify('structuredContent' in result, `${tool} declares an outputSchema, so its result carries structuredContent`, 'structuredContent', result);
      const outcome = validateOutput(schema, result.structuredContent);
      c.verify(outcome.ok, `${tool}: structuredContent does not conform to the outputSchema: ${outcome.errors}`, schema, result.structuredContent);
    }
    // Tools that declare a schema but never answer a valid call prevent the check: that is the service's doing.
    c.verify(checked > 0 || unanswered.length === 0, `every sampled call of a tool declaring an outputSchema failed (${[...new Set(unanswered)].join(', ')}): no structured result to hold to its schema`, 'a successful result', unanswered);
    if (checked === 0) c.notApplicable('no sampled tool declares an outputSchema');
  } });

  // "a tool that returns structured content SHOULD also return the serialized JSON in a TextContent block."
  check({ ids: 'calls-text-mirrors-structured', name: 'a result with structuredContent also carries it as JSON text', run: async (c) => {
    const samples = await sampleCalls(c);
    let checked = 0;
    for (const { tool, res } of samples) {
      const result = finalMessage(res)?.result;
      if (!isObject(result) || !('structuredContent' in result)) continue;
      checked += 1;
      const mirrored = (Array.isArray(result.content) ? result.content : []).some((item: any) => {
        if (item?.type !== 'text' || typeof item.text !== 'string') return false;
        try {
          return isDeepStrictEqual(JSON.parse(item.text), result.structuredContent);
        } catch {
          return false;
        }
      });
      c.verify(mirrored, `${tool}: no text block holds the serialized structuredContent`, jsonSnippet(result.structuredContent), result.content);
    }
    if (checked === 0) c.notApplicable('no call returned structuredContent: the rule concerns results that carry it');
  } });

  // Protocol Errors: "Standard JSON-RPC errors for issues like: Unknown tools". Example: `{"code": -32602, "message": "Unknown tool: invalid_tool_name"}`.
  check({ ids: 'calls-unknown-tool-protocol-error', name: 'an unknown tool is a protocol error, not an isError result', generic: true, run: async (c) => {
    const res = await c.mcp.call('conformance.no-such-tool', {});
    const msg = finalMessage(res);
    c.verify(res.status < 500, 'an unknown tool is not a server error', '< 500', c.brief(res));
    const got = !isObject(msg) ? 'no JSON-RPC message' : msg.result?.isError === true ? 'an isError result' : 'result' in msg ? 'a result' : 'an error';
    c.verify(isObject(msg) && !('result' in msg), `an unknown tool gets a JSON-RPC error, not ${got}`, { error: { code: -32602 } }, msg ?? c.brief(res));
    if (msg.error?.code !== -32602) c.observe(`an unknown tool gets error code ${msg.error?.code} (-32602 in MCP's example; jsonrpc-standard-error-codes judges it)`);
  } });

  // "Servers **MUST**: Validate all tool inputs."
  check({ ids: 'calls-invalid-arguments-rejected', name: 'wrong-typed arguments are rejected (isError or -32602), never a 5xx or -32603', run: async (c) => {
    const tools = await toolsByName(c);
    const list = listBlocks(c);
    const probes: { label: string; send: () => Promise<WireResponse> }[] = [];
    for (const rev of [undefined, ...c.target.revisions.filter((r) => r !== MODERN)]) {
      for (const value of ['yes', 1]) {
        probes.push({ label: `${list.tool} {published: ${JSON.stringify(value)}}${rev ? ` under ${rev}` : ''}`, send: () => c.mcp.call(list.tool, { ...list.arguments, published: value }, rev ? { headers: { 'mcp-protocol-version': rev } } : {}) });
      }
    }
    // Every listed tool: one declared property given a value of another type.
    for (const [name, tool] of tools) {
      const props = isObject(tool.inputSchema?.properties) ? tool.inputSchema.properties : {};
      const entry = Object.entries(props).find(([, p]) => wrongValue(p, tool.inputSchema) !== undefined);
      if (!entry) continue;
      const args = { [entry[0]]: wrongValue(entry[1], tool.inputSchema) };
      probes.push({ label: `${name} ${JSON.stringify(args)}`, send: () => c.mcp.call(name, args) });
    }
    const outcomes = await Promise.all(probes.map(async (p) => ({ label: p.label, res: await p.send() })));
    const seen = new Map<string, number>();
    for (const { label, res } of outcomes) {
      const how = rejection(res);
      seen.set(how, (seen.get(how) ?? 0) + 1);
      c.verify(how === 'tool-error' || how === 'invalid-params', `${label} is rejected as invalid (isError result or -32602), not ${how}`, 'isError: true, or error -32602', c.brief(res));
    }
    c.observe(`${outcomes.length} invalid calls: ${[...seen].map(([k, n]) => `${n} ${k}`).join(', ')}`);
  } });

  // Tool Execution Errors: "Reported in tool results with `isError: true`: ... Input validation errors" (SEP-1303, 2025-11-25).
  check({ ids: 'calls-invalid-arguments-tool-error', name: 'from 2025-11-25, wrong-typed arguments are an isError result the model can read', run: async (c) => {
    const list = listBlocks(c);
    const args = { ...list.arguments, published: 'yes' };
    let res: WireResponse;
    if ((c.revision ?? (c.target.revisions.includes(SEP_1303) ? SEP_1303 : MODERN)) === SEP_1303) { // this run's revision
      res = await c.mcp.call(list.tool, args, { headers: { 'mcp-protocol-version': SEP_1303 } });
    } else {
      res = await c.mcp.post({
        jsonrpc: '2.0', id: c.run.ids.next(), method: 'tools/call',
        params: { name: list.tool, arguments: args, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } },
      }, { headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': list.tool } });
    }
    const result = finalMessage(res)?.result;
    c.verify(result?.isError === true, 'a wrong-typed argument gets a result with isError: true', { isError: true }, c.brief(res));
    c.verify(textOf(result).trim().length > 0, 'the isError result explains the problem in a text block', 'a non-empty text block', result.content);
    if (c.target.revisions.includes('2025-06-18')) {
      const before = await c.mcp.call(list.tool, args, { headers: { 'mcp-protocol-version': '2025-06-18' } });
      c.observe(`under 2025-06-18 the same call gets ${rejection(before)}`);
    }
  } });

  // "A call against an expired or unknown handle should return a tool execution error that says so" (non-normative).
  check({ ids: 'calls-unknown-handle-tool-error', name: 'a block id that does not exist is an isError result that says so', run: async (c) => {
    const bogus = 'conformance-no-such-block';
    const recipes = [c.target.profile.streaming['blocks.build'], c.target.profile.calls.publishBlock].filter((r): r is CallRecipe => r !== undefined);
    if (recipes.length === 0) c.notTestable('the profile has no recipe taking a block id (blocks.build, publishBlock)');
    for (const recipe of recipes) {
      const res = await c.mcp.recipe(recipe, { blockId: bogus });
      const result = finalMessage(res)?.result;
      c.verify(result?.isError === true, `${recipe.tool} with an unknown block id is a tool execution error (isError), not a protocol error`, { isError: true }, c.brief(res));
      const text = textOf(result);
      c.verify(text.includes(bogus) || /not found|unknown|no such|does not exist|expired/i.test(text), `${recipe.tool}: the error says the block is unknown`, `a message naming ${bogus} or saying it is not found`, text);
    }
  } });

  // "`blocks.list` accepts a boolean argument `published`." "the `published` flag used as a filter of `blocks.list`; a boolean".
  check({ ids: 'calls-published-filter-partitions', name: 'published: true and false partition blocks.list', run: async (c) => {
    const create = c.target.profile.calls.createBlock;
    if (!create) c.notTestable(c.target.profile.gaps?.createBlock ?? 'the profile has no createBlock recipe');
    const own = await ownWorkspace(c, 'published-filter');
    const mcp = own ?? c.mcp;
    if (!own) c.observe('bootstrap is not available: ran on the shared workspace, where other checks may add blocks meanwhile');
    const ids = await Promise.all([1, 2, 3].map(async (i) => {
      const vars: Record<string, unknown> = { title: `conformance published ${i}` };
      const res = await mcp.recipe(create!, vars);
      c.verify(isObject(finalMessage(res)?.result) && finalMessage(res).result.isError !== true, `the profile's createBlock recipe succeeds`, 'a result', c.brief(res));
      return vars.blockId === undefined ? undefined : String(vars.blockId);
    }));
    const publish = c.target.profile.calls.publishBlock;
    const published = ids[0];
    if (publish && published !== undefined) {
      const res = await mcp.recipe(publish, { blockId: published });
      c.verify(isObject(finalMessage(res)?.result) && finalMessage(res).result.isError !== true, `the profile's publishBlock recipe succeeds`, 'a result', c.brief(res));
    } else c.observe('no publishBlock recipe (or no captured blockId): only the partition is checked');

    const attempts = own ? 1 : 3;
    for (let attempt = 1; ; attempt++) {
      const [all, yes, no] = await Promise.all([listKeys(c, mcp), listKeys(c, mcp, true), listKeys(c, mcp, false)]);
      const both = yes.filter((k) => no.includes(k));
      c.verify(both.length === 0, 'no block is listed under both published: true and published: false', [], both);
      const union = [...yes, ...no].sort();
      if (!isDeepStrictEqual(union, [...all].sort()) && attempt < attempts) continue;
      c.verify(isDeepStrictEqual(union, [...all].sort()), 'the published and unpublished lists together are the unfiltered list', [...all].sort(), union);
      for (const id of ids) if (id !== undefined) c.verify(all.includes(id), `created block ${id} is listed`, id, all);
      if (publish && published !== undefined) c.verify(yes.includes(published), `the block published through the profile (${published}) is in the published: true list`, published, yes);
      c.observe(`${all.length} blocks: ${yes.length} published, ${no.length} not`);
      return;
    }
  } });

  // "Plan caps apply to block authoring." "block authoring stays within the caps of the plan." Held to the
  // declared cap of the bootstrap plan: a workspace holding more than its bound without a refusal fails.
  check({ ids: 'calls-plan-cap-exists', name: 'a workspace is refused a create by its declared plan cap (with a bounded margin)', timeout: 60_000, run: async (c) => {
    const { before, created, after, refusal, declared, undeclared, bound } = await fillToCap(c);
    if (!declared) return c.notTestable(`no declared cap to hold the service to: ${undeclared}; declare it in the profile's "limits" (plans.<plan>.maxBlocks with bootstrapPlan) or with --limits cap=<n>`);
    const limit = capBound(declared.maxBlocks);
    const held = Math.max(after, before + created);
    if (!refusal && held <= limit) return c.notTestable(`the workspace already held ${before} block(s): ${bound} create(s) (the harness's most, ${CAP_DECLARED_MAX}) cannot take it past ${describeCapBound(declared.maxBlocks)}`);
    c.verify(held <= limit, `no plan cap: the workspace on plan "${declared.plan}" (declared cap ${declared.maxBlocks}) holds ${held} blocks, more than ${describeCapBound(declared.maxBlocks)}, ${refusal ? 'before the first refusal' : 'and no create was refused'}`, `a refused create by ${limit} blocks`, { before, created, listedAfter: after, refused: refusal ? c.brief(refusal) : null });
    c.verify(!!refusal, 'a create was refused', 'a refusal', null);
    c.observe(`refused after ${created} create(s), the workspace holding ${before + created} block(s) (declared cap ${declared.maxBlocks})`);
  } });

  // "block authoring stays within the caps of the plan." Tool Execution Errors: "Reported in tool results with `isError: true`: ... Business logic errors".
  check({ ids: 'calls-plan-cap-tool-error', name: 'past the plan cap, creating a block is a clear isError result', timeout: 60_000, run: async (c) => {
    const { before, created, refusal, bound } = await fillToCap(c);
    if (!refusal) return c.notTestable(`no plan cap reached within ${bound} creates (the workspace held ${before} block(s), ${created} were created; calls-plan-cap-exists judges a missing cap)`);
    const msg = finalMessage(refusal);
    c.verify(refusal.status < 500, 'the refusal at the cap is not a server error', '< 500', c.brief(refusal));
    c.verify(msg?.result?.isError === true, 'the refusal at the cap is a tool result with isError: true', { isError: true }, msg ?? c.brief(refusal));
    c.verify(textOf(msg.result).trim().length > 0, 'the refusal explains itself in a text block', 'a non-empty text block', msg.result.content);
  } });

  // "block authoring stays within the caps of the plan": a refused create writes nothing.
  check({ ids: 'calls-plan-cap-no-partial-write', name: 'the blocks listed after the cap are exactly the creates that succeeded', timeout: 60_000, run: async (c) => {
    const { before, after, created, refusal, bound } = await fillToCap(c);
    c.verify(after === before + created, 'blocks listed = blocks before + successful creates (a refused create writes nothing, a reported success wrote one)', before + created, after);
    if (!refusal) c.notTestable(`no plan cap reached within ${bound} creates (the workspace held ${before} block(s), ${created} were created; calls-plan-cap-exists judges a missing cap)`);
  } });
});

export default seal();
