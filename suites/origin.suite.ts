import { defineSuite } from '../src/engine/check.js';
import { isRedirect, RedirectRefused } from '../src/wire/redirect.js';

const { check, describe, seal } = defineSuite('origin');

/**
 * No request leaves the target's origin (issue 13). The wire client never follows a redirect and throws a
 * refusal for one it meets (src/wire/redirect.ts), so every check fails on a redirecting endpoint; this one
 * names the rule. A redirect followed would send the body and the `Authorization` header to the Location.
 */
describe('origin', () => {
  // "There is exactly one MCP endpoint: `{base_url}/api/mcp/v1`. Every MCP-capable client uses the same
  // endpoint and the same way of authenticating." (RFC 9110 §15.4: a 3xx sends the request elsewhere.)
  check({ ids: 'origin-no-cross-origin-redirect', name: 'the endpoint answers POST itself (tools/list and tools/call), never with a redirect', run: async (c) => {
    const recipe = c.target.profile.calls.listBlocks ?? { tool: 'blocks.list', arguments: {} };
    const sends: [string, () => ReturnType<typeof c.mcp.request>][] = [
      ['tools/list', () => c.mcp.request('tools/list')],
      // A read-only call: its answer (a result or a tool error) is not judged here, only where it comes from.
      [`tools/call ${recipe.tool}`, () => c.mcp.call(recipe.tool, recipe.arguments as Record<string, unknown>)],
    ];
    for (const [what, send] of sends) {
      let status: number;
      try {
        status = (await send()).status;
      } catch (err) {
        if (err instanceof RedirectRefused) c.verify(false, `${what}: ${err.message}`, 'an answer from {base_url}/api/mcp/v1 itself', { status: err.status, location: err.location });
        throw err;
      }
      c.verify(!isRedirect(status), `${what} is answered by the endpoint itself (HTTP ${status})`, 'not a 3xx', status);
    }
  } });
});

export default seal();
