import { defineSuite } from '../../src/engine/check.js';
import { hasKeyForm, unusableKeyReason } from '../../src/kit/key-form.js';
import { finalMessage } from '../../src/mcp/mcp-session.js';
import { bootstrap, runsAllowed, showSpoiled, spoiledBodyArb, unique, validBodyArb } from '../../src/properties/bootstrap-bodies.js';

const { check, describe, seal } = defineSuite('properties/bootstrap');

/**
 * `POST /api/agent/bootstrap` searched: bodies a client may send (unicode and long names, odd but valid
 * addresses, extra fields) always yield a working key and a claim URL; bodies with a field missing, of
 * another type, or an address that is not one get a 4xx; nothing gets a 5xx. Every valid body creates a
 * workspace and sends a mail, so the valid property is capped well below the embedded target's bootstrap
 * burst, and on a deployment each property runs only as often as its share of the bootstrap budget allows.
 */

describe.concurrent('bootstrap properties', () => {
  // "Response: includes `apiKey` (a temporary MCP key, returned immediately) and `claimUrl` (a link for the human)."
  // "The agent connects to the MCP endpoint with the returned `apiKey`."
  check({ ids: ['bootstrap-returns-key', 'bootstrap-returns-claim-url', 'bootstrap-key-works'], name: 'property: every valid body (unicode names, odd addresses, extra fields) yields a working key and a claim URL', property: 'bootstrap-valid-bodies', run: async (c) => {
    const runLimit = await runsAllowed(c, 'bootstrap-valid-bodies', 60);
    await c.property({
      arbitrary: validBodyArb,
      maxRuns: 60,
      ...(runLimit !== undefined && { runLimit }),
      predicate: async (b) => {
        const res = await bootstrap(c, { ...b, humanEmail: unique(b.humanEmail) });
        c.verify(res.status === 200 || res.status === 201, 'a valid body succeeds (200 or 201)', '200 or 201', `${res.status} ${res.text.slice(0, 200)}`);
        const { apiKey, claimUrl } = res.json ?? {};
        // A key outside b64token (a trailing newline) is bootstrap-key-b64token's to judge, once: the form is judged
        // around it, and the key is never put in a header of the harness's own.
        const unusable = typeof apiKey === 'string' ? unusableKeyReason(apiKey) : undefined;
        c.verify(typeof apiKey === 'string' && hasKeyForm(unusable ? apiKey.trim() : apiKey, c.target.keyPrefix), 'the reply has an apiKey of the form <prefix>_live_<secret>', '<prefix>_live_<secret>', typeof apiKey);
        c.verify(typeof claimUrl === 'string' && URL.canParse(claimUrl) && /^https?:$/.test(new URL(claimUrl).protocol), 'the reply has an absolute http(s) claimUrl', 'absolute http(s) URL', claimUrl);
        if (unusable) return true;
        const used = await c.mcp.request('tools/list', undefined, { key: apiKey });
        c.verify(used.status === 200 && Array.isArray(finalMessage(used)?.result?.tools), 'tools/list with the new key returns the tools', 200, used.status);
        return true;
      },
    });
  } });

  // "The 5xx (Server Error) class of status code indicates that the server is aware that it has erred."
  // "`humanEmail`: string, e-mail address; `agentName`: string; `workspaceName`: string; `canvasName`: string."
  // Judged at MUST only: that a spoiled body is refused at all is a SHOULD (bootstrap-wrong-type-4xx,
  // -bad-email-4xx), which the scenario checks judge; a check fails every row it verifies, so this one
  // verifies only the rows its MUST verdicts are about.
  check({ ids: ['bootstrap-bad-field-no-5xx', 'bootstrap-missing-field-no-5xx'], name: 'property: a body with fields missing, of another type, or a bad address is accepted or refused with a 4xx, never a 5xx', property: 'bootstrap-spoiled-bodies', run: async (c) => {
    const runLimit = await runsAllowed(c, 'bootstrap-spoiled-bodies', 100);
    await c.property({
      arbitrary: spoiledBodyArb,
      maxRuns: 100,
      ...(runLimit !== undefined && { runLimit }),
      show: showSpoiled,
      predicate: async ({ body, invalid }) => {
        if (typeof body.humanEmail === 'string' && body.humanEmail.includes('@') && !invalid) body = { ...body, humanEmail: unique(body.humanEmail) };
        const res = await bootstrap(c, body);
        c.verify(res.status < 500, `the reply to a body${invalid ? ` with ${invalid}` : ''} is never a 5xx`, 'below 500', res.status);
        c.verify(res.status < 300 || (res.status >= 400 && res.status < 500), 'the body is accepted or refused with a 4xx', '2xx or 4xx', res.status);
        return true;
      },
    });
  } });
});

export default seal();
