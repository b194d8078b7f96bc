import { defineSuite } from '../src/engine/check.js';

const { check, describe, seal } = defineSuite('versioning');

describe('versioning', () => {
  // "The version is carried in the path: the MCP endpoint ends in `/v1`."
  check({ ids: 'version-v1-path', name: 'tools/list answers on /api/mcp/v1', run: async ({ mcp, verify, target }) => {
    verify(new URL(target.mcpUrl).pathname.endsWith('/v1'), 'the MCP endpoint path ends in /v1', '/api/mcp/v1', new URL(target.mcpUrl).pathname);
    const res = await mcp.request('tools/list');
    verify(res.status === 200, 'tools/list on /v1 answers 200', 200, res.status);
  } });

  // "There is exactly one MCP endpoint: `{base_url}/api/mcp/v1`." The sentence demands that no other path is
  // an endpoint; which 4xx says so is not shown: 404 (RFC 9110 §15.5.5) and 410 (gone) are equally right.
  check({ ids: 'version-other-paths-404', name: 'other API versions are not served', run: async ({ http, mcp, target, verify, observe, run }) => {
    for (const path of ['/api/mcp/v2', '/api/mcp/v0', '/api/mcp']) {
      const res = await http.request(`${target.baseUrl}${path}`, { method: 'POST', headers: mcp.headers(), json: { jsonrpc: '2.0', id: run.ids.next(), method: 'tools/list' } });
      verify(res.status === 404 || res.status === 410, `${path} answered ${res.status}: it is not refused as a path that does not exist`, '404 or 410', res.status);
      if (res.status !== 404) observe(`${path} answered ${res.status} (404 is usual)`);
    }
  } });
});

export default seal();
