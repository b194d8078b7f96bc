import fc from 'fast-check';
import { describe } from 'vitest';
import { check, type CheckContext } from '../../src/check.js';
import type { Revision } from '../../src/catalog/types.js';
import { finalMessage } from '../../src/mcp-session.js';
import { invalidValues, schemaValidator, validValues, type InvalidValue, type SchemaValidator } from '../../src/properties/schema-arbitrary.js';
import { freshKey } from '../../src/properties/workspaces.js';
import type { WireResponse } from '../../src/wire/client.js';
import { isObject, textOf } from '../../src/tool-result.js';

/**
 * Tool arguments searched from the schemas the server publishes: for every tool `tools/list` returns, values
 * its `inputSchema` accepts and values it refuses (one defect each), judged by ajv, sent under the revisions
 * the target speaks. Works on any implementation: tools/list is the source of truth for tools and arguments.
 */

const MODERN: Revision = '2026-07-28';
/** SEP-1303: from this revision on, input validation errors are tool execution errors (isError). */
const SEP_1303: Revision = '2025-11-25';
/** Runs that end in a streaming tool cost its steps (~160 ms on the embedded target): weigh them down. */
const STREAMING_WEIGHT = 1;
const PLAIN_WEIGHT = 4;
/** On the embedded target, a reply still missing after this is a hang (the time box would otherwise end the search on it silently). */
const JSON_DEADLINE_MS = 1000;
const STREAM_DEADLINE_MS = 2500;
const MAX_PAGES = 10;

interface Tool {
  name: string;
  schema: Record<string, unknown>;
  validate: SchemaValidator;
  streaming: boolean;
}

interface Call {
  tool: string;
  args: unknown;
  revision: Revision | undefined;
  /** What was spoiled, for invalid arguments. */
  mutation?: string;
}


function brief(res: WireResponse): unknown {
  return { status: res.status, contentType: res.headers['content-type'], body: finalMessage(res) ?? res.text.slice(0, 300) };
}

function show(call: Call): string {
  const args = JSON.stringify(call.args);
  return `${call.tool} ${args.length > 400 ? `${args.slice(0, 400)}… (${args.length} chars)` : args}${call.mutation ? ` [${call.mutation}]` : ''}${call.revision ? ` under ${call.revision}` : ''}`;
}

interface Setup {
  key: string | null;
  tools: Tool[];
  hints: Record<string, unknown[]>;
}

/**
 * A key of the check's own, the listed tools with compiled schemas, and values the profile's setup captured
 * (a real block id, say) to mix into arguments of the same name, so valid runs reach past "not found".
 */
async function setup(c: CheckContext, purpose: string): Promise<Setup> {
  const key = c.target.admin || c.target.canBootstrap || c.target.apiKey ? await freshKey(c, purpose) : null;
  const listed: any[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await c.mcp.request('tools/list', cursor === undefined ? undefined : { cursor }, { key });
    const result = finalMessage(res)?.result;
    c.verify(isObject(result) && Array.isArray(result.tools), 'tools/list returns tools', 'a tools array', brief(res));
    listed.push(...result.tools.filter(isObject));
    if (typeof result.nextCursor !== 'string') break;
    cursor = result.nextCursor;
  }
  const streamingNames = new Set([...Object.keys(c.target.profile.streaming), ...Object.values(c.target.profile.streaming).map((r) => r.tool)]);
  const tools: Tool[] = [];
  for (const t of listed) {
    if (typeof t.name !== 'string' || !isObject(t.inputSchema)) continue;
    try {
      tools.push({ name: t.name, schema: t.inputSchema, validate: schemaValidator(t.inputSchema), streaming: streamingNames.has(t.name) });
    } catch (err) {
      c.observe(`${t.name}: its inputSchema does not compile (${(err as Error).message}); left out (tools-input-schema-compiles says so)`);
    }
  }
  if (tools.length === 0) c.notTestable('tools/list lists no tool with a usable inputSchema');
  const vars: Record<string, unknown> = {};
  for (const recipe of c.target.profile.setup) await c.mcp.recipe(recipe, vars, { key });
  const hints = Object.fromEntries(Object.entries(vars).filter(([, v]) => v !== undefined).map(([k, v]) => [k, [v]]));
  if (Object.keys(hints).length > 0) c.observe(`values from the profile's setup mixed into arguments of the same name: ${Object.keys(hints).join(', ')}`);
  return { key, tools, hints };
}

let nextId = 1;

/** tools/call under a revision: no header, a 2025-era MCP-Protocol-Version, or the 2026-07-28 wire (_meta and Mcp-* headers). */
async function callTool(c: CheckContext, s: Setup, call: Call, streaming: boolean): Promise<{ res: WireResponse; id: number }> {
  const id = nextId++;
  // Our own server answers at once, so a short deadline finds hangs fast; a deployment gets the user's
  // --timeout (network latency and a loaded service are not protocol errors).
  const timeoutMs = c.target.kind === 'embedded' ? Math.min(c.target.timeoutMs, streaming ? STREAM_DEADLINE_MS : JSON_DEADLINE_MS) : c.target.timeoutMs;
  const params: Record<string, unknown> = { name: call.tool, arguments: call.args };
  let headers: Record<string, string> = {};
  if (call.revision === MODERN) {
    params._meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
    headers = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': call.tool };
  } else if (call.revision) headers = { 'mcp-protocol-version': call.revision };
  try {
    return { res: await c.mcp.post({ jsonrpc: '2.0', id, method: 'tools/call', params }, { key: s.key, headers, timeoutMs }), id };
  } catch (err) {
    return c.verify(false, `${show(call)} is answered within ${timeoutMs} ms`, 'a reply', (err as Error).message) as never;
  }
}

/** The reply's final message: a JSON-RPC response to the call, not a server error. */
function reply(c: CheckContext, call: Call, res: WireResponse, id: number): any {
  c.verify(res.status < 500, `${show(call)} is not answered with a server error`, '< 500', brief(res));
  const msg = finalMessage(res);
  c.verify(isObject(msg) && msg.id === id && ('result' in msg || 'error' in msg), `${show(call)} gets a JSON-RPC response to it`, { id, 'result | error': '...' }, brief(res));
  return msg;
}

/** Valid arguments of a tool, the tool picked with streaming ones weighed down. */
function validCalls(s: Setup, revisions: (Revision | undefined)[]): fc.Arbitrary<Call> {
  return fc.oneof(...s.tools.map((t) => ({
    weight: t.streaming ? STREAMING_WEIGHT : PLAIN_WEIGHT,
    arbitrary: fc.record({ args: validValues(t.schema, { hints: s.hints }), revision: fc.constantFrom(...revisions) }).map(({ args, revision }) => ({ tool: t.name, args, revision })),
  })));
}

/** Invalid arguments of a tool (refused at validation, before any streaming step: every tool weighs the same). */
function invalidCalls(s: Setup, revisions: (Revision | undefined)[]): fc.Arbitrary<Call> | undefined {
  const spoilable = s.tools.map((t) => ({ t, bad: invalidValues(t.schema, { hints: s.hints }) })).filter((x): x is { t: Tool; bad: fc.Arbitrary<InvalidValue> } => x.bad !== undefined);
  if (spoilable.length === 0) return undefined;
  return fc.oneof(...spoilable.map(({ t, bad }) => fc.record({ bad, revision: fc.constantFrom(...revisions) })
    .map(({ bad: b, revision }) => ({ tool: t.name, args: b.value, mutation: b.mutation, revision }))));
}

/**
 * A property over calls whose arguments the inputSchema refuses (judged by ajv again, per run), sent under
 * `revisions`; `judge` says what the reply must be.
 */
async function invalidArgumentsProperty(c: CheckContext, id: string, revisions: (Revision | undefined)[], judge: (call: Call, msg: any) => void): Promise<void> {
  const s = await setup(c, id);
  const byName = new Map(s.tools.map((t) => [t.name, t]));
  const calls = invalidCalls(s, revisions);
  if (!calls) return c.notTestable('no listed tool has an inputSchema that refuses anything');
  await c.property({
    id,
    arbitrary: calls,
    show,
    predicate: async (call) => {
      const tool = byName.get(call.tool)!;
      fc.pre(!tool.validate(call.args));
      const { res, id: callId } = await callTool(c, s, call, tool.streaming);
      judge(call, reply(c, call, res, callId));
    },
  });
}

describe.concurrent('tool argument properties', () => {
  // The inputSchema is "A JSON Schema object defining the expected parameters for the tool." Protocol errors are for
  // "Malformed requests (requests that fail to satisfy CallToolRequest schema)": arguments the schema accepts are not
  // one (a tool execution error, isError, is fine: an id may not exist).
  check('calls-valid-arguments-accepted', 'property: arguments valid per a tool\'s inputSchema never get a protocol error or a 5xx', async (c) => {
    const s = await setup(c, 'tool-arguments-valid');
    const byName = new Map(s.tools.map((t) => [t.name, t]));
    const slow = new Set<string>();
    await c.property({
      id: 'tool-arguments-valid',
      arbitrary: validCalls(s, [undefined, ...c.target.revisions]),
      show,
      predicate: async (call) => {
        const tool = byName.get(call.tool)!;
        // ajv judges: a value the generator got wrong is not a valid-arguments case.
        fc.pre(tool.validate(call.args));
        const { res, id } = await callTool(c, s, call, tool.streaming);
        // A tool may take its time (a long-running operation): a stream still open at the deadline, its result
        // not yet sent, has shown no protocol error and proves none.
        if (res.mediaType === 'text/event-stream' && !res.closed && finalMessage(res)?.id !== id) {
          slow.add(call.tool);
          return;
        }
        const msg = reply(c, call, res, id);
        c.verify(!('error' in msg), `${show(call)}: arguments the inputSchema accepts get a result (isError allowed), not a protocol error`, { result: '...' }, msg);
        c.verify(isObject(msg.result) && Array.isArray(msg.result.content), `${show(call)}: the result has a content array`, { content: [] }, msg.result);
      },
    });
    if (slow.size > 0) c.observe(`still streaming at the deadline, so not judged: calls of ${[...slow].join(', ')}`);
  }, { generic: true });

  // "Servers **MUST**: Validate all tool inputs." Rejected as invalid: -32602 (protocol error, before 2025-11-25) or
  // an isError result (SEP-1303); never a success, a 5xx, or -32603 (an internal error is not a client fault).
  check('calls-invalid-arguments-rejected', 'property: arguments the inputSchema refuses are rejected (-32602 or isError), never carried out', async (c) => {
    await invalidArgumentsProperty(c, 'tool-arguments-invalid', [undefined, ...c.target.revisions.filter((r) => r !== MODERN)], (call, msg) => {
      const rejected = msg.result?.isError === true || msg.error?.code === -32602;
      c.verify(rejected, `${show(call)}: invalid arguments are rejected (isError result or -32602), not ${msg.error ? `error ${msg.error.code}` : 'a success'}`, 'isError: true, or error -32602', msg);
    });
  });

  // Tool Execution Errors: "Reported in tool results with `isError: true`: ... Input validation errors (e.g., date in
  // wrong format, value out of range)" (2025-11-25, SEP-1303).
  check('calls-invalid-arguments-tool-error', 'property: from 2025-11-25, arguments the inputSchema refuses get an isError result with a message', async (c) => {
    const revision = c.revision ?? (c.target.revisions.includes(SEP_1303) ? SEP_1303 : MODERN); // this run's revision
    await invalidArgumentsProperty(c, 'tool-arguments-sep-1303', [revision], (call, msg) => {
      c.verify(msg.result?.isError === true, `${show(call)}: invalid arguments get a result with isError: true`, { result: { isError: true } }, msg);
      c.verify(textOf(msg.result).trim().length > 0, `${show(call)}: the isError result says what is wrong in a text block`, 'a non-empty text block', msg.result);
    });
  });
});
