import fc from 'fast-check';
import { defineSuite } from '../../src/engine/check.js';
import type { Revision } from '../../src/catalog/types.js';
import { callTool, invalidArgumentsProperty, onDeployment, prepareTools, reply, showCall, smallestInstance, stillRunning, validCalls, withValidArguments, type Call } from '../../src/properties/tool-calls.js';
import type { WireResponse } from '../../src/wire/client.js';
import { NotTestable } from '../../src/engine/verdict.js';
import { isObject, textOf } from '../../src/mcp/tool-result.js';
import { eachLimited } from '../../src/kit/each-limited.js';

const { check, describe, seal } = defineSuite('properties/tool-arguments');

/**
 * Tool arguments searched from the schemas the server publishes: for every tool `tools/list` returns, values
 * its `inputSchema` accepts and values it refuses (one defect each), judged by ajv, sent under the revisions
 * the target speaks. Works on any implementation: tools/list is the source of truth for tools and arguments.
 */

const MODERN: Revision = '2026-07-28';
/** Tool calls in flight at once on a deployment. */
const DEPLOYMENT_CALLS_AT_ONCE = 4;
/** SEP-1303: from this revision on, input validation errors are tool execution errors (isError). */
const SEP_1303: Revision = '2025-11-25';

describe.concurrent('tool argument properties', () => {
  // The inputSchema is "A JSON Schema object defining the expected parameters for the tool." Protocol errors are for
  // "Malformed requests (requests that fail to satisfy CallToolRequest schema)": arguments the schema accepts are not
  // one (a tool execution error, isError, is fine: an id may not exist).
  check({ ids: 'calls-valid-arguments-accepted', name: 'property: arguments valid per a tool\'s inputSchema never get a protocol error or a 5xx', generic: true, property: 'tool-arguments-valid', run: async (c) => {
    // Tools whose valid arguments no bounded search finds are left out (observed); none left: not testable.
    const s = withValidArguments(c, await prepareTools(c, 'tool-arguments-valid'));
    const byName = new Map(s.tools.map((t) => [t.name, t]));
    const slow = new Set<string>();
    const judge = (call: Call, res: WireResponse, id: number) => {
      const msg = reply(c, call, res, id);
      c.verify(!('error' in msg), `${showCall(call)}: arguments the inputSchema accepts get a result (isError allowed), not a protocol error`, { result: '...' }, msg);
      c.verify(isObject(msg.result) && Array.isArray(msg.result.content), `${showCall(call)}: the result has a content array`, { content: [] }, msg.result);
    };
    if (onDeployment(c.target)) {
      // Spend little on a deployment: each tool once, under the run's revision, with its schema's smallest
      // instance, no search; a few at a time, so that one slow tool does not hold up the others.
      const call = async (tool: (typeof s.tools)[number]) => {
        const one: Call = { tool: tool.name, args: smallestInstance(tool, s.hints, c.settings.seed), revision: c.mcp.revision };
        let sent: Awaited<ReturnType<typeof callTool>>;
        try {
          sent = await callTool(c, s, one);
        } catch (err) {
          // Past the harness's deadline: this tool is not judged, the others are.
          if (!(err instanceof NotTestable)) throw err;
          slow.add(one.tool);
          return;
        }
        const { res, id } = sent;
        if (stillRunning(res, id)) slow.add(one.tool);
        else judge(one, res, id);
      };
      await eachLimited(s.tools, DEPLOYMENT_CALLS_AT_ONCE, call);
      c.observe(`on a deployment: ${s.tools.length} tool(s) called once each with the smallest instance of its inputSchema, no search`);
      if (slow.size > 0) c.observe(`not answered within the deadline, so not judged (notifications/cancelled sent): calls of ${[...slow].join(', ')}`);
      if (slow.size === s.tools.length) c.notTestable(`no call was answered within the harness's deadline of ${c.settings.timeoutMs} ms (notifications/cancelled sent for each): ${[...slow].join(', ')}`);
      return;
    }
    await c.property({
      arbitrary: validCalls(s, [undefined, ...c.target.revisions]),
      show: showCall,
      predicate: async (call) => {
        const tool = byName.get(call.tool)!;
        // ajv judges: a value the generator got wrong is not a valid-arguments case.
        fc.pre(tool.validate(call.args));
        const { res, id } = await callTool(c, s, call);
        // A tool may take its time (a long-running operation): a stream still open at the deadline, its result
        // not yet sent, has shown no protocol error and proves none.
        if (stillRunning(res, id)) {
          slow.add(call.tool);
          return;
        }
        judge(call, res, id);
      },
    });
    if (slow.size > 0) c.observe(`still streaming at the deadline, so not judged: calls of ${[...slow].join(', ')}`);
  } });

  // "Servers **MUST**: Validate all tool inputs." Rejected as invalid: -32602 (protocol error, before 2025-11-25) or
  // an isError result (SEP-1303); never a success, a 5xx, or -32603 (an internal error is not a client fault).
  check({ ids: 'calls-invalid-arguments-rejected', name: 'property: arguments the inputSchema refuses are rejected (-32602 or isError), never carried out', property: 'tool-arguments-invalid', run: async (c) => {
    await invalidArgumentsProperty(c, 'tool-arguments-invalid', [undefined, ...c.target.revisions.filter((r) => r !== MODERN)], (call, msg) => {
      const rejected = msg.result?.isError === true || msg.error?.code === -32602;
      c.verify(rejected, `${showCall(call)}: invalid arguments are rejected (isError result or -32602), not ${msg.error ? `error ${msg.error.code}` : 'a success'}`, 'isError: true, or error -32602', msg);
    });
  } });

  // Tool Execution Errors: "Reported in tool results with `isError: true`: ... Input validation errors (e.g., date in
  // wrong format, value out of range)" (2025-11-25, SEP-1303).
  check({ ids: 'calls-invalid-arguments-tool-error', name: 'property: from 2025-11-25, arguments the inputSchema refuses get an isError result with a message', property: 'tool-arguments-sep-1303', run: async (c) => {
    const revision = c.revision ?? (c.target.revisions.includes(SEP_1303) ? SEP_1303 : MODERN); // this run's revision
    await invalidArgumentsProperty(c, 'tool-arguments-sep-1303', [revision], (call, msg) => {
      c.verify(msg.result?.isError === true, `${showCall(call)}: invalid arguments get a result with isError: true`, { result: { isError: true } }, msg);
      c.verify(textOf(msg.result).trim().length > 0, `${showCall(call)}: the isError result says what is wrong in a text block`, 'a non-empty text block', msg.result);
    });
  } });
});

export default seal();
