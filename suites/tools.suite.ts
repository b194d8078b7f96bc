import { followPages, listed, MAX_LIST_PAGES } from '../src/wire/list-pages.js';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { type CheckContext, defineSuite } from '../src/engine/check.js';
import { finalMessage } from '../src/mcp/mcp-session.js';
import { isObject } from '../src/mcp/tool-result.js';
import type { WireResponse } from '../src/wire/client.js';
import { withoutTypelessNullable } from '../src/properties/schema-arbitrary.js';

const { check, describe, seal } = defineSuite('tools');

/** The tools the description names (§Resources, §Events); tools/list is the authority for the rest. */
const DESCRIBED_TOOLS = ['blocks.create', 'blocks.build', 'blocks.list', 'dataSources.testConnection', 'dataSources.triggerRefresh', 'schedule.preview'];
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const MODERN = '2026-07-28';

/**
 * Every page of tools/list, following `nextCursor` (bounded); fails the check on a reply without a result.
 * `endless`: a nextCursor still came after MAX_LIST_PAGES pages; only tools-list-result-shape judges it (one fault, one row).
 */
async function listTools(c: CheckContext): Promise<{ tools: any[]; pages: any[]; endless: boolean }> {
  const paged = await followPages(async (cursor) => {
    const res = await c.mcp.request('tools/list', cursor === undefined ? undefined : { cursor });
    const msg = finalMessage(res);
    c.verify(res.status === 200 && isObject(msg?.result), 'tools/list answers 200 with a result', '200 and a result object', { status: res.status, body: msg ?? res.text.slice(0, 300) });
    return msg.result;
  });
  if (paged.endless) c.observe(`tools/list still had a nextCursor after ${MAX_LIST_PAGES} pages; stopped there`);
  return { tools: listed(paged), pages: paged.results, endless: paged.endless };
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020_12 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

/**
 * Compiles a schema in its dialect: 2020-12 unless `$schema` says draft-07. Unknown keywords are allowed
 * (JSON Schema ignores them); the schema itself is validated against its dialect's meta-schema.
 */
function compile(schema: unknown): { ok: true; validate: (v: unknown) => boolean } | { ok: false; error: string } | { dialect: string } {
  if (!isObject(schema)) return { ok: false, error: `not a JSON Schema object: ${JSON.stringify(schema)}` };
  const dialect = schema.$schema;
  if (dialect !== undefined && (typeof dialect !== 'string' || (!DRAFT_07.test(dialect) && !DRAFT_2020_12.test(dialect)))) return { dialect: String(dialect) };
  const ajv = validator(typeof dialect === 'string' && DRAFT_07.test(dialect) ? 'draft-07' : '2020-12');
  // ajv refuses OpenAPI's `nullable` beside no `type`, a keyword JSON Schema does not know (it is ignored).
  const readable = withoutTypelessNullable(schema);
  try {
    const validate = ajv.compile(readable);
    return { ok: true, validate: (v) => validate(v) as boolean };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  } finally {
    // Tools may reuse an `$id`; each schema is compiled on its own.
    ajv.removeSchema(readable);
  }
}

const validators = new Map<string, Ajv | Ajv2020>();

/** One validator per dialect (building one compiles its meta-schemas, which is the slow part). */
function validator(dialect: 'draft-07' | '2020-12'): Ajv | Ajv2020 {
  let ajv = validators.get(dialect);
  if (!ajv) {
    ajv = dialect === 'draft-07' ? new Ajv({ strict: false, allErrors: true }) : new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    validators.set(dialect, ajv);
  }
  return ajv;
}

function modernToolsList(c: CheckContext): Promise<WireResponse> {
  return c.mcp.post({
    jsonrpc: '2.0', id: c.run.ids.next(), method: 'tools/list',
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } },
  }, { headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' } });
}

describe('tools', () => {
  // "ListToolsResult: `tools: Tool[]`, `nextCursor?: string`. A Tool has `name: string` and `inputSchema` (required)."
  // Pagination: "An optional `nextCursor` field if more results exist": a cursor on every page claims results
  // that never come, so the list is never complete.
  check({ ids: 'tools-list-result-shape', name: 'tools/list returns tools with a name and an inputSchema, and a string nextCursor if any', generic: true, run: async (c) => {
    const { tools, pages, endless } = await listTools(c);
    const last = pages.at(-1)?.nextCursor;
    c.verify(!endless, `tools/list still had a nextCursor after ${MAX_LIST_PAGES} pages (last ${JSON.stringify(last)}): the list never ends`, `a page without nextCursor within ${MAX_LIST_PAGES} pages`, { pages: pages.length, lastNextCursor: last });
    for (const page of pages) {
      c.verify(Array.isArray(page.tools), 'result.tools is an array', 'an array', page.tools);
      c.verify(page.nextCursor === undefined || typeof page.nextCursor === 'string', 'nextCursor is a string when present', 'a string or absent', page.nextCursor);
    }
    for (const tool of tools) {
      c.verify(isObject(tool), 'every tool is an object', 'an object', tool);
      c.verify(typeof tool.name === 'string' && tool.name.length > 0, 'every tool has a string name', 'a non-empty string', tool.name);
      c.verify(isObject(tool.inputSchema), `${tool.name}: inputSchema is present and an object`, 'an object', tool.inputSchema ?? null);
      for (const field of ['title', 'description'] as const) {
        c.verify(tool[field] === undefined || typeof tool[field] === 'string', `${tool.name}: ${field} is a string when present`, 'a string or absent', tool[field]);
      }
      c.verify(tool.outputSchema === undefined || isObject(tool.outputSchema), `${tool.name}: outputSchema is an object when present`, 'an object or absent', tool.outputSchema);
    }
    c.observe(`${tools.length} tools in ${pages.length} page(s)`);
  } });

  // Block: "Authored through tools `blocks.create`, `blocks.build`, `blocks.list`." Data source: "Operated through
  // `dataSources.testConnection` and `dataSources.triggerRefresh`." Schedule: "Operated through `schedule.preview`."
  check({ ids: 'tools-described-tools-listed', name: 'every tool the description names is in tools/list', run: async (c) => {
    const { tools } = await listTools(c);
    const names = tools.map((t) => t?.name);
    const missing = DESCRIBED_TOOLS.filter((n) => !names.includes(n));
    c.verify(missing.length === 0, `tools/list lacks ${missing.join(', ')}`, DESCRIBED_TOOLS, names);
    const extra = names.filter((n) => !DESCRIBED_TOOLS.includes(n));
    if (extra.length) c.observe(`tools beyond the description: ${extra.join(', ')}`);
  } });

  // inputSchema: "Defaults to 2020-12 if no `$schema` field is present"; "**MUST** be a valid JSON Schema object (not `null`)".
  check({ ids: 'tools-input-schema-compiles', name: 'every inputSchema is a valid JSON Schema in its dialect', generic: true, run: async (c) => {
    const { tools } = await listTools(c);
    // The service's tools/list names six tools: an empty one is its failure; a generic server may have none.
    if (tools.length === 0) c.target.profile.kind === 'service' ? c.verify(false, 'tools/list lists no tool', 'the tools the description names', []) : c.notTestable('tools/list lists no tool');
    for (const tool of tools) {
      const compiled = compile(tool?.inputSchema);
      // A dialect no checker reads is the service's choice, and leaves its schema unproven: a failure, not a skip.
      c.verify(!('dialect' in compiled), `${tool.name}: inputSchema declares $schema ${'dialect' in compiled ? compiled.dialect : ''}, a dialect the harness cannot validate (it reads 2020-12, the default, and draft-07)`, 'a 2020-12 or draft-07 schema', tool.inputSchema ?? null);
      if ('dialect' in compiled) continue;
      c.verify(compiled.ok, `${tool.name}: inputSchema does not compile${compiled.ok ? '' : `: ${compiled.error}`}`, 'a valid JSON Schema', tool.inputSchema ?? null);
    }
  } });

  // Tool.inputSchema: `{ $schema?: string; type: "object"; ... }`.
  check({ ids: 'tools-input-schema-object-root', name: 'every inputSchema has "type": "object" at its root', generic: true, run: async (c) => {
    const { tools } = await listTools(c);
    // The service's tools/list names six tools: an empty one is its failure; a generic server may have none.
    if (tools.length === 0) c.target.profile.kind === 'service' ? c.verify(false, 'tools/list lists no tool', 'the tools the description names', []) : c.notTestable('tools/list lists no tool');
    for (const tool of tools) {
      c.verify(isObject(tool?.inputSchema) && tool.inputSchema.type === 'object', `${tool?.name}: inputSchema root type is "object"`, { type: 'object' }, tool?.inputSchema ?? null);
    }
  } });

  // "`blocks.list` accepts a boolean argument `published`."
  check({ ids: 'tools-blocks-list-published-boolean', name: 'blocks.list takes a boolean `published`', run: async (c) => {
    const { tools } = await listTools(c);
    const tool = tools.find((t) => t?.name === 'blocks.list');
    c.verify(tool !== undefined, 'blocks.list is in tools/list', 'blocks.list', tools.map((t) => t?.name));
    const compiled = compile(tool.inputSchema);
    c.verify(!('dialect' in compiled), `blocks.list declares $schema ${'dialect' in compiled ? compiled.dialect : ''}, a dialect the harness cannot validate (2020-12, draft-07)`, 'a 2020-12 or draft-07 schema', tool.inputSchema);
    if ('dialect' in compiled) return;
    if (!compiled.ok) return c.verify(false, `blocks.list inputSchema does not compile: ${compiled.error}`, 'a valid JSON Schema', tool.inputSchema);
    const declared = isObject(tool.inputSchema.properties) && 'published' in tool.inputSchema.properties;
    c.verify(declared, 'blocks.list declares a `published` property', 'properties.published', tool.inputSchema);
    for (const value of [true, false]) {
      c.verify(compiled.validate({ published: value }), `blocks.list accepts published: ${value}`, 'valid', { published: value });
    }
    for (const value of ['true', 1, null]) {
      c.verify(!compiled.validate({ published: value }), `blocks.list's schema rejects published: ${JSON.stringify(value)} (not a boolean)`, 'invalid', { published: value });
    }
  } });

  // "Tool names SHOULD be between 1 and 128 characters ... the only allowed characters: A-Z, a-z, 0-9, _, -, ." "SHOULD be unique within a server."
  check({ ids: 'tools-name-format', name: 'tool names are 1-128 characters of [A-Za-z0-9_.-] and unique', generic: true, run: async (c) => {
    const { tools } = await listTools(c);
    const names: unknown[] = tools.map((t) => t?.name);
    const bad = names.filter((n) => typeof n !== 'string' || !TOOL_NAME.test(n));
    c.verify(bad.length === 0, `tool names outside ^[A-Za-z0-9_.-]{1,128}$: ${bad.map((n) => JSON.stringify(n)).join(', ')}`, 'names matching ^[A-Za-z0-9_.-]{1,128}$', bad);
    const dupes = names.filter((n, i) => names.indexOf(n) !== i);
    c.verify(dupes.length === 0, `duplicate tool names: ${dupes.join(', ')}`, 'unique names', dupes);
  } });

  // "Servers **SHOULD** return tools in a deterministic order (i.e., the same ordering across requests when the underlying set of tools has not changed)."
  check({ ids: 'tools-list-deterministic-order', name: 'tools/list returns the same order every time', generic: true, run: async (c) => {
    const orders = async (send: () => Promise<WireResponse>) =>
      (await Promise.all([1, 2, 3].map(() => send()))).map((res) => {
        const tools = finalMessage(res)?.result?.tools;
        return Array.isArray(tools) ? tools.map((t: any) => t?.name).join(',') : undefined;
      });
    const legacy = await orders(() => c.mcp.request('tools/list'));
    if (new Set(legacy).size > 1) c.observe('the 2025-era wire returned tools/list in different orders (a SHOULD only from 2026-07-28)');
    const modern = await orders(() => modernToolsList(c));
    c.verify(modern.every((o) => o !== undefined), 'tools/list on the 2026-07-28 wire returns tools', 'three listings', modern);
    c.verify(new Set(modern).size === 1, 'three tools/list calls (2026-07-28) return the same order', modern[0], modern);
  } });

  // "Invalid cursors SHOULD result in an error with code -32602 (Invalid params)."
  check({ ids: 'tools-list-invalid-cursor', name: 'tools/list with a cursor the server never issued gets -32602', generic: true, run: async (c) => {
    const res = await c.mcp.request('tools/list', { cursor: 'conformance-not-a-cursor-%%' });
    const msg = finalMessage(res);
    c.verify(res.status < 500, 'an invalid cursor is not a server error', '< 500', res.status);
    c.verify(msg?.error?.code === -32602, 'an invalid cursor gets a -32602 error, not a page', { error: { code: -32602 } }, msg ?? res.text.slice(0, 300));
  } });
});

export default seal();
