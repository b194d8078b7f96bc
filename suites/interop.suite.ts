import type { RunSettings } from '../src/engine/run-settings.js';
import type { Client } from '@modelcontextprotocol/client';
import { type CheckContext, defineSuite } from '../src/engine/check.js';
import { epochNow, watchStalls, type StallWatch } from '../src/interop/machine.js';
import { blameTimeout, TIMEOUT_TEXT } from '../src/interop/timeout-blame.js';
import { fill } from '../src/profile/profile.js';
import { Throttled } from '../src/engine/verdict.js';

const { check, describe, seal } = defineSuite('interop');

/**
 * The official SDK client (`@modelcontextprotocol/client`) against the target, configured as the description's
 * `mcpServers` entry is: the endpoint URL and headers (the `Authorization` header with the key, and any
 * `--header`). Its HTTP traffic goes through the check's recording fetch, so a failure carries the exchanges as evidence.
 */

const LEGACY = ['2025-03-26', '2025-06-18', '2025-11-25'];
const MODERN = '2026-07-28';
const CLIENT_INFO = { name: 'mcp-conformance-harness', version: '0.1.0' };
/**
 * Connect, tools/list, the profile's setup and the call may each wait out the run's per-request deadline: the
 * default 30 s check deadline is three of them, and on a starved machine it ended the check as the harness's error.
 */
const SDK_CHECK_TIMEOUT = (settings: RunSettings) => 20_000 + 4 * settings.timeoutMs;

/**
 * "What the harness's own machine causes is never the service's fault" (issue 33): an SDK request that timed
 * out while the service answered promptly (the harness's event loop stalled, the reply waited unread) ends the
 * check as not testable with that account; one the service left unanswered stays the service's failure.
 */
function blameWait(c: CheckContext, watch: StallWatch, what: string, connect: boolean, from: number, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  if (!TIMEOUT_TEXT.test(message)) return;
  const blame = blameTimeout({ what, connect, from, to: epochNow(), deadlineMs: c.settings.timeoutMs, wire: c.http.log, stalls: watch.stalls() });
  if (blame.side === 'harness') c.notTestable(`the official SDK client: ${blame.reason}`);
}

/** An SDK client over Streamable HTTP with the target's key and headers, recorded; `run` gets it connected. */
async function withSdkClient(c: CheckContext, mode: 'legacy' | 'auto', run: (client: Client, watch: StallWatch) => Promise<void>): Promise<void> {
  // Loaded here, not at the top: runs that select no interop requirement do not pay for the SDK.
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const recorder = c.recordingFetch();
  const headers: Record<string, string> = { ...c.target.headers, ...(c.target.apiKey && { authorization: `Bearer ${c.target.apiKey}` }) };
  // The 2025 handshake offers the first 2025-era entry of supportedProtocolVersions: this run's revision.
  const pinned = mode === 'legacy' && c.revision && LEGACY.includes(c.revision) ? [c.revision] : undefined;
  const client = new Client(CLIENT_INFO, { versionNegotiation: { mode }, ...(pinned && { supportedProtocolVersions: pinned }) });
  const transport = new StreamableHTTPClientTransport(new URL(c.target.mcpUrl), { requestInit: { headers }, fetch: recorder.fetch });
  // The SDK's timeouts run on this event loop: a stall of it can outlast them while the service has answered.
  const watch = watchStalls();
  try {
    const from = epochNow();
    try {
      await client.connect(transport, { timeout: c.settings.timeoutMs });
    } catch (err) {
      blameWait(c, watch, 'connect', true, from, err);
      const message = (err as Error).message;
      c.verify(false, `the official SDK client (${mode} negotiation) could not connect: ${message}`, 'a connected client', message);
    }
    c.observe(`the SDK client (${mode} negotiation) negotiated ${client.getNegotiatedProtocolVersion()}`);
    await run(client, watch);
  } catch (err) {
    // The SDK failed on a 429 the harness could not wait out: the throttle is the verdict, not what the SDK made of it.
    const throttled = recorder.throttled();
    if (throttled) throw new Throttled(throttled.message, { status: throttled.status, ...(throttled.retryAfter !== undefined && { 'retry-after': throttled.retryAfter }) });
    throw err;
  } finally {
    await client.close().catch(() => {});
    await recorder.settle();
    watch.stop();
  }
}

async function listTools(c: CheckContext, client: Client, watch: StallWatch): Promise<void> {
  let tools: { name: string }[];
  const from = epochNow();
  try {
    ({ tools } = await client.listTools(undefined, { timeout: c.settings.timeoutMs }));
  } catch (err) {
    blameWait(c, watch, 'tools/list', false, from, err);
    const message = (err as Error).message;
    return c.verify(false, `the SDK client's tools/list failed: ${message}`, 'a tools/list result the SDK accepts', message);
  }
  c.verify(tools.length > 0, 'tools/list lists at least one tool', '>= 1 tool', tools.length);
  c.observe(`tools/list through the SDK client: ${tools.length} tools`);
}

/**
 * The profile's streaming recipe to call: one needing no setup, preferably of a tool annotated read-only (it
 * leaves the workspace, and its block cap, alone); else the first one, after the profile's setup calls.
 */
async function streamingCall(c: CheckContext, readOnly: Set<string>): Promise<{ name: string; arguments: Record<string, unknown> }> {
  const recipes = Object.values(c.target.profile.streaming);
  if (recipes.length === 0) c.notTestable(`profile ${c.target.profile.name} has no streaming tool recipe`);
  const plain = recipes.filter((r) => !JSON.stringify(r.arguments).includes('{{'));
  const pick = plain.find((r) => readOnly.has(r.tool)) ?? plain[0];
  if (pick) return { name: pick.tool, arguments: pick.arguments };
  const vars = await c.mcp.setup();
  return { name: recipes[0]!.tool, arguments: fill(recipes[0]!.arguments, vars) as Record<string, unknown> };
}

/** Calls a streaming tool through the SDK with `onprogress`: progress first, strictly increasing, then the result. */
async function streamThroughSdk(c: CheckContext, client: Client, watch: StallWatch): Promise<void> {
  const listed = await client.listTools(undefined, { timeout: c.settings.timeoutMs }).catch(() => ({ tools: [] }));
  const call = await streamingCall(c, new Set(listed.tools.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name)));
  const progress: number[] = [];
  let afterResult = 0;
  let resolved = false;
  let result;
  const from = epochNow();
  try {
    result = await client.callTool(call, {
      timeout: c.settings.timeoutMs,
      onprogress: (p) => {
        progress.push(p.progress);
        if (resolved) afterResult += 1;
      },
    });
    resolved = true;
  } catch (err) {
    blameWait(c, watch, `tools/call ${call.name}`, false, from, err);
    const message = (err as Error).message;
    c.verify(false, `the SDK client's ${call.name} call failed: ${message}`, 'a tool result', message);
  }
  c.verify(progress.length > 0, `the SDK client's progress callback saw the progress of ${call.name} before its result`, '>= 1 progress notification with the token the SDK sent', progress.length);
  c.verify(progress.every((v, i) => i === 0 || v > progress[i - 1]!), 'progress increases with each notification', 'strictly increasing', progress);
  c.verify(result !== undefined && result.isError !== true, `${call.name} ends with a successful result`, 'isError absent or false', result);
  // A notification arriving after the result would reach the callback late; give it a moment to show up.
  await new Promise((r) => setTimeout(r, 50));
  c.verify(afterResult === 0, 'no progress follows the result', 0, afterResult);
  c.observe(`${call.name}: ${progress.length} progress notifications (${progress.join(', ')}), then the result`);
}

// Side by side: against a server that breaks streams each SDK call waits out its timeout, and one after another
// the four took 40 s. On a deployment the clients' few requests go through the recording fetch, which paces
// them and waits out a 429 like every request of a check.
describe.concurrent('interop: the official SDK client', () => {
  // "Every MCP-capable client uses the same endpoint and the same way of authenticating."
  check({ ids: 'interop-sdk-legacy-connect', name: 'the official SDK client connects with the 2025 handshake and lists tools', generic: true, timeout: SDK_CHECK_TIMEOUT, run: async (c) => {
    await withSdkClient(c, 'legacy', async (client, watch) => {
      const negotiated = client.getNegotiatedProtocolVersion();
      c.verify(negotiated !== undefined && LEGACY.includes(negotiated), 'initialize settles on a 2025 revision', LEGACY, negotiated);
      // The target speaks this run's revision (revision detection found it), so the handshake settles on it.
      if (c.revision && LEGACY.includes(c.revision)) c.verify(negotiated === c.revision, `the SDK client offering ${c.revision} settles on it`, c.revision, negotiated);
      await listTools(c, client, watch);
    });
  } });

  // "The body carries progress notifications, then ends with a final `result` event."
  check({ ids: 'interop-sdk-legacy-streaming', name: 'the official SDK client (2025 handshake) gets progress, then the result, from a streaming tool', timeout: SDK_CHECK_TIMEOUT, run: async (c) => {
    await withSdkClient(c, 'legacy', (client, watch) => streamThroughSdk(c, client, watch));
  } });

  // "Every MCP-capable client uses the same endpoint and the same way of authenticating." (the 2026-07-28 wire,
  // which this target offers in server/discover: an auto-negotiating client must end up on it)
  check({ ids: 'interop-sdk-modern-connect', name: 'the official SDK client negotiating automatically selects 2026-07-28 and lists tools', generic: true, timeout: SDK_CHECK_TIMEOUT, run: async (c) => {
    await withSdkClient(c, 'auto', async (client, watch) => {
      const negotiated = client.getNegotiatedProtocolVersion();
      c.verify(negotiated === MODERN, 'server/discover offers 2026-07-28, so the auto-negotiating SDK client selects it', MODERN, negotiated);
      await listTools(c, client, watch);
    });
  } });

  // "The body carries progress notifications, then ends with a final `result` event." (on the 2026-07-28 wire)
  check({ ids: 'interop-sdk-modern-streaming', name: 'the official SDK client on 2026-07-28 gets progress, then the result, from a streaming tool', timeout: SDK_CHECK_TIMEOUT, run: async (c) => {
    await withSdkClient(c, 'auto', async (client, watch) => {
      const negotiated = client.getNegotiatedProtocolVersion();
      c.verify(negotiated === MODERN, 'the auto-negotiating SDK client is on the 2026-07-28 wire', MODERN, negotiated);
      await streamThroughSdk(c, client, watch);
    });
  } });
});

export default seal();
