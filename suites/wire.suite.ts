import type { RunState } from '../src/engine/run-state.js';
import { runSecrets, type CheckContext, defineSuite } from '../src/engine/check.js';
import { absoluteUrls, verifyHttpsUrls, type HandedOutUrl } from '../src/judging/handed-out-urls.js';
import { McpSession } from '../src/mcp/mcp-session.js';
import { fill } from '../src/profile/profile.js';
import type { TargetInfo } from '../src/targets/target-info.js';
import { WireClient, type WireResponse } from '../src/wire/client.js';
import type { Exchange } from '../src/wire/exchange.js';
import {
  judgeEventIds, judgeEventTypes, judgeNoBom, judgeNotificationIds, judgeSseData, judgeUtf8, judgeVersionMember, type LabelledReply,
} from '../src/judging/wire-judge.js';

const { check, describe, seal } = defineSuite('wire');

/**
 * The bytes and frames of the service's replies to plain requests (src/catalog/wire.ts; the judgements are
 * src/judging/wire-judge.ts). One round on the run's key serves every row: tools/list and a plain JSON call, each with
 * and without a progress token, and a call of an unknown tool whose name holds non-ASCII characters: a
 * service echoes it in its error, and that is where UTF-8 and Latin-1 differ (ASCII is the same bytes in
 * both). The streaming tools' streams are judged on the streaming suite's own round (suites/streaming.suite.ts),
 * so that no block is created twice for the same evidence. Under the generic profile this round is all there
 * is, and most MCP servers answer it with event streams.
 */

/** A tool name no service offers, outside ASCII (Latin-1 letters and others), so its echo shows the encoding. */
const NON_ASCII_TOOL = 'conformance.prüfung-ツール';
const MODERN = '2026-07-28';

interface Sent { label: string; res?: WireResponse; error?: string; exchanges: Exchange[] }


/** The embedded reference answers at once: a short deadline keeps a stream that never ends from costing the run's. */
function deadline(target: TargetInfo, timeoutMs: number): number {
  return target.kind === 'embedded' ? Math.min(timeoutMs, 5000) : timeoutMs;
}

async function runRound(run: RunState, target: TargetInfo): Promise<Sent[]> {
  const secrets = runSecrets(target);
  const timeoutMs = deadline(target, run.settings.timeoutMs);
  const sent: Sent[] = [];
  const add = (label: string, call: (s: McpSession) => Promise<WireResponse>) => {
    const x: Sent = { label, exchanges: [] };
    sent.push(x);
    return call(new McpSession(new WireClient(x.exchanges, () => secrets, { run }), target)).then((res) => void (x.res = res), (err: Error) => void (x.error = err.message));
  };
  const plain = target.profile.calls.listBlocks;
  // A recipe needing a captured id has no value here (no setup runs): it is left out, not sent half-filled.
  const plainArgs = plain && !JSON.stringify(plain.arguments).includes('{{') ? fill(plain.arguments, {}) as Record<string, unknown> : undefined;
  await Promise.all([
    add('tools/list', (s) => s.request('tools/list', undefined, { timeoutMs })),
    add('tools/list (progress token)', (s) => s.request('tools/list', { _meta: { progressToken: 'wire-list' } }, { timeoutMs })),
    add(`tools/call ${NON_ASCII_TOOL}`, (s) => s.call(NON_ASCII_TOOL, {}, { timeoutMs })),
    ...(plain && plainArgs ? [
      add(plain.tool, (s) => s.call(plain.tool, plainArgs, { timeoutMs })),
      add(`${plain.tool} (progress token)`, (s) => s.call(plain.tool, plainArgs, { progressToken: 'wire-plain', timeoutMs })),
    ] : []),
  ]);
  return sent;
}

/** The round's replies; a round where none arrived is the service's failure. */
async function replies(c: CheckContext): Promise<LabelledReply[]> {
  // No key to send the round with (bootstrap refused, a key that cannot be sent): not testable, and why.
  if (!c.target.apiKey && c.target.noKeyReason) c.notTestable(c.target.noKeyReason);
  const sent = await c.run.once('wire round', () => runRound(c.run, c.target));
  const failed = sent.filter((x) => !x.res);
  if (failed.length > 0) c.observe(`${failed.length} request(s) got no reply: ${failed.slice(0, 3).map((x) => `${x.label}: ${x.error}`).join('; ')}`);
  const got = sent.filter((x): x is Sent & { res: WireResponse } => !!x.res);
  if (got.length === 0) {
    for (const x of sent) c.http.log.push(...x.exchanges);
    c.verify(false, 'no request of the round got a reply', 'replies to judge', failed.map((x) => `${x.label}: ${x.error}`).slice(0, 5));
  }
  return got;
}

/** The round's event streams; without any, a row about streams has nothing here to judge. */
function streamsOf(c: CheckContext, got: LabelledReply[]): LabelledReply[] {
  const sse = got.filter((x) => x.res.events);
  if (sse.length > 0) return sse;
  c.notApplicable(c.target.profile.kind === 'service'
    ? `the ${got.length} plain requests were answered with application/json; the streaming tools' streams are judged with the streaming round (suites/streaming.suite.ts)`
    : `the server answered all ${got.length} requests with application/json: no event stream to judge`);
}

/** Discovery files whose links the service hands out. */
const DISCOVERY = ['/agent.md', '/llms.txt', '/llms-full.txt'];
/** Paths of the service itself: a link to one of them names the service, on whatever host it is published. */
const SERVICE_PATHS = /^\/(api\/|claim\/|agent\.md$|llms(-full)?\.txt$)/;

describe('wire', () => {
  // "JSON-RPC messages MUST be UTF-8 encoded." (MCP transports); RFC 8259: JSON text "MUST be encoded using
  // UTF-8"; WHATWG: "Event streams in this format must always be encoded as UTF-8."
  check({ ids: 'wire-utf8', name: 'every reply to a plain request, JSON body or event stream, is UTF-8', generic: true, run: async (c) => {
    judgeUtf8(c, await replies(c));
  } });

  // "Implementations MUST NOT add a byte order mark (U+FEFF) to the beginning of a networked-transmitted JSON
  // text." (RFC 8259 §8.1) A JSON body is one, and so is each event's data; the SSE grammar `stream = [ bom ]
  // *event` allows one BOM before the first event, which is observed only.
  check({ ids: 'wire-json-no-bom', name: 'no JSON body, and no event\'s data, of a reply to a plain request begins with a byte order mark', generic: true, run: async (c) => {
    judgeNoBom(c, await replies(c));
  } });

  // "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification." Each SSE event
  // carries one JSON-RPC message; an event with empty data (2025-11-25's priming event) carries none.
  check({ ids: 'wire-sse-data-jsonrpc', name: 'the data of every SSE event of a reply to a plain request is one JSON-RPC message', generic: true, run: async (c) => {
    judgeSseData(c, streamsOf(c, await replies(c)));
  } });

  // "Notifications MUST NOT include an ID." (MCP basic/index) JSON-RPC §4.1: "A Notification is a Request
  // object without an "id" member."
  check({ ids: 'wire-notification-no-id', name: 'no notification in a reply to a plain request carries an id', generic: true, run: async (c) => {
    judgeNotificationIds(c, await replies(c));
  } });

  // WHATWG: "If the event type buffer has a value other than the empty string, change the type of the newly
  // created event to equal the value of the event type buffer": only `message` events (an event without an
  // `event` field is one) reach a client's message handler; the SDK clients drop the others.
  check({ ids: 'wire-sse-event-type', name: 'every SSE event of a reply to a plain request is of type message (or has no event field)', generic: true, run: async (c) => {
    judgeEventTypes(c, streamsOf(c, await replies(c)));
  } });

  // "jsonrpc: A String specifying the version of the JSON-RPC protocol. MUST be exactly "2.0"." Here every
  // message of the round, inside event streams too (a generic server's replies are streams).
  check({ ids: 'jsonrpc-version-member', name: 'every message of the replies to plain requests, inside streams too, says "jsonrpc": "2.0"', generic: true, run: async (c) => {
    judgeVersionMember(c, await replies(c));
  } });

  // "If present, the ID MUST be globally unique across all streams within that session—or all streams with
  // that specific client, if session management is not in use." The round's streams are all the run key's
  // (and its session's, on a server that keeps sessions).
  check({ ids: 'wire-sse-event-id-unique', name: 'SSE event ids of the replies to plain requests, where present, are unique across the streams', generic: true, run: async (c) => {
    if (c.revision === MODERN) c.notApplicable('the target speaks only 2026-07-28, which has no resumable streams and so no rule on event ids');
    judgeEventIds(c, streamsOf(c, await replies(c)));
  } });

  // "Transport is HTTPS carrying JSON-RPC 2.0." (service.md) The discovery files' links to the service are
  // https when it is reached over https (the bootstrap reply's claimUrl: suites/bootstrap.suite.ts).
  check({ ids: 'wire-https-urls', name: 'the discovery files link to the service over https when it is reached over https', run: async (c) => {
    const files = await Promise.all(DISCOVERY.map((p) => c.http.request(`${c.target.baseUrl}${p}`, { method: 'GET', headers: { accept: 'text/markdown, text/plain;q=0.9, */*;q=0.1' } })));
    const served = DISCOVERY.filter((_, i) => files[i]!.status === 200);
    // The files themselves are discovery-files-served's; without any there is no link to judge.
    c.verify(served.length > 0, `no discovery file is served (${DISCOVERY.map((p, i) => `${p}: ${files[i]!.status}`).join('; ')})`, 200, files.map((x) => x.status));
    const target = new URL(c.target.baseUrl);
    const urls: HandedOutUrl[] = [];
    const elsewhere = new Set<string>();
    DISCOVERY.forEach((p, i) => {
      if (files[i]!.status !== 200) return;
      for (const { raw, url } of absoluteUrls(files[i]!.text)) {
        // The service's own: its host (any port, any scheme), or a path of the service on a public host it names.
        if (url.hostname === target.hostname || SERVICE_PATHS.test(url.pathname)) urls.push({ where: p, url: raw });
        else elsewhere.add(url.origin);
      }
    });
    if (elsewhere.size > 0) c.observe(`links to other hosts, not the service's to judge: ${[...elsewhere].slice(0, 5).join(', ')}`);
    verifyHttpsUrls(c, urls, 'the discovery files\' links');
  } });
});

export default seal();
