import { type CheckContext, defineSuite } from '../src/engine/check.js';
import type { WireResponse } from '../src/wire/client.js';

const { check, describe, seal } = defineSuite('dns-rebinding');

/**
 * DNS rebinding (MCP basic/transports §Security Warning): a page of `evil.example` rebinds its name to the
 * server's address, and the user's browser sends the page's requests to a local server: Host and Origin
 * name the page's host. As the official conformance suite's `dns-rebinding-protection` scenario, the probes
 * are a plain `tools/list` (the harness's key and session, so only the named header is at fault).
 */

/** A host of the reserved example domain (RFC 2606): never a valid host or origin of any server. */
const FOREIGN_HOST = 'evil.example';

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const served = (res: WireResponse) => res.status >= 200 && res.status < 300;

/** Sends `tools/list` with `headers` over the run's; a control without them must be served, or nothing is judged. */
async function probe(c: CheckContext, headers: Record<string, string>): Promise<WireResponse> {
  const control = await c.mcp.request('tools/list');
  if (!served(control)) c.notTestable(`a plain tools/list is not served (HTTP ${control.status}), so a refusal of the probe would prove nothing`);
  return c.mcp.request('tools/list', undefined, { headers });
}

/** The probes' headers for the target: the rebound page's Host and Origin, or a foreign Origin with the target's own Host. */
function probes(c: CheckContext) {
  const target = new URL(c.target.mcpUrl);
  const foreign = `${FOREIGN_HOST}${target.port ? `:${target.port}` : ''}`;
  return {
    rebound: { host: foreign, origin: `${target.protocol}//${foreign}` },
    foreignOrigin: { host: target.host, origin: `${target.protocol}//${foreign}` },
    foreignHost: { host: foreign },
  };
}

/**
 * Where the foreign Origin is known invalid: on loopback always; elsewhere only against the profile's
 * declared origins. Otherwise the check is not applicable, with what the target answered.
 */
async function originKnownInvalid(c: CheckContext): Promise<void> {
  if (isLoopback(c.target.mcpUrl)) return;
  const declared = c.target.profile.allowedOrigins;
  if (declared && declared.length > 0) return;
  const res = await c.mcp.request('tools/list', undefined, { headers: { origin: probes(c).foreignOrigin.origin } });
  c.notApplicable(`${new URL(c.target.mcpUrl).host} is not served on loopback and the profile declares no "allowedOrigins", so which origins are valid is unknown (Origin ${probes(c).foreignOrigin.origin} was answered HTTP ${res.status}); declare them to judge it`);
}

describe('dns-rebinding', () => {
  // "Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks."
  check({ ids: 'dns-rebinding-origin-validated', name: 'a request with a foreign Origin is refused: with the foreign Host a rebound page sends, and with the target\'s own Host', generic: true, run: async (c) => {
    await originKnownInvalid(c);
    const { rebound, foreignOrigin } = probes(c);
    if (isLoopback(c.target.mcpUrl)) {
      const res = await probe(c, rebound);
      c.verify(!served(res), `a rebound page's request (Host ${rebound.host}, Origin ${rebound.origin}) is refused (HTTP ${res.status})`, 'a 4xx', c.brief(res));
    }
    const res = await probe(c, foreignOrigin);
    c.verify(!served(res), `a request with Origin ${foreignOrigin.origin} and the target's Host ${foreignOrigin.host} is refused (HTTP ${res.status})${isLoopback(c.target.mcpUrl)
      ? ': a foreign Host is refused, so the server checks Host, not Origin; a rebinding is stopped, but a page of any origin may still have a browser send the server requests that need no CORS preflight, which the Origin check exists to refuse'
      : ''}`, 'a 4xx', c.brief(res));
  } });

  // "If the Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden. The HTTP
  // response body MAY comprise a JSON-RPC error response that has no id." (2025-11-25 and later.)
  check({ ids: 'dns-rebinding-origin-403', name: 'a request whose only fault is a foreign Origin is answered 403 Forbidden', generic: true, run: async (c) => {
    await originKnownInvalid(c);
    const { foreignOrigin } = probes(c);
    const res = await probe(c, foreignOrigin);
    c.verify(res.status === 403, `Origin ${foreignOrigin.origin} with the target's Host is answered 403 (HTTP ${res.status})`, 403, c.brief(res));
  } });

  // "Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks."
  // (The conformance scenario: a localhost server "MUST validate the Host or Origin header"; a browser's
  // same-origin GET after a rebinding carries no Origin, so only Host shows it.)
  check({ ids: 'dns-rebinding-host-validated', name: 'served on loopback, a request naming a foreign Host and no Origin is refused', generic: true, run: async (c) => {
    if (!isLoopback(c.target.mcpUrl)) c.notApplicable(`${new URL(c.target.mcpUrl).host} is not served on loopback: which Host names a deployment answers to is its proxies' business`);
    const { foreignHost } = probes(c);
    const res = await probe(c, foreignHost);
    c.verify(!served(res), `a request with Host ${foreignHost.host} and no Origin is refused (HTTP ${res.status})`, 'a 4xx', c.brief(res));
  } });
});

export default seal();
