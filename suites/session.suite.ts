import { randomInt } from 'node:crypto';
import { type CheckContext, defineSuite } from '../src/engine/check.js';
import type { Revision } from '../src/catalog/types.js';
import { finalMessage } from '../src/mcp/mcp-session.js';
import { isObject } from '../src/mcp/tool-result.js';
import { baseHeaders, initializeParams, sessionHeaders, sessionRevision } from '../src/targets/session-lifecycle.js';
import type { WireResponse } from '../src/wire/client.js';

const { check, describe, seal } = defineSuite('session');

/**
 * Session management of the 2025-era Streamable HTTP transport, on servers that assign `Mcp-Session-Id`.
 * Every check opens sessions of its own (never the run's, which the other suites are using) and ends them.
 * A server that answers initialize without a session id keeps no session state: the rows do not apply.
 */

const NOT_APPLICABLE = 'not applicable: the server keeps no session state (initialize was answered without Mcp-Session-Id)';
/** "The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E)." */
const VISIBLE_ASCII = /^[\x21-\x7E]+$/;

interface Session {
  id: string;
  revision: Revision;
  /** Ended by a DELETE the server accepted: nothing left to clean up. */
  ended: boolean;
}

const is2xx = (status: number) => status >= 200 && status < 300;

/** The revision this run of the check speaks (one run per revision the target speaks), else the newest 2025-era one. */
function revisionOf(c: CheckContext & { revision?: Revision }): Revision | undefined {
  return c.revision ?? sessionRevision(c.target);
}

/** `initialize` without a session id: the target's headers and key, nothing of the run's session. */
function initialize(c: CheckContext, revision: Revision): Promise<WireResponse> {
  return c.http.request(c.target.mcpUrl, { method: 'POST', headers: baseHeaders(c.target), json: { jsonrpc: '2.0', id: c.run.ids.named('session-init'), method: 'initialize', params: initializeParams(revision) } });
}

/** A POST in `s` (its id, and its revision's header from 2025-06-18). */
function post(c: CheckContext, s: Session, body: unknown): Promise<WireResponse> {
  return c.http.request(c.target.mcpUrl, { method: 'POST', headers: { ...baseHeaders(c.target), ...sessionHeaders(s.revision, s.id) }, json: body });
}

function toolsList(c: CheckContext, s: Session): Promise<WireResponse> {
  return post(c, s, { jsonrpc: '2.0', id: c.run.ids.named('session-list'), method: 'tools/list' });
}

function deleteSession(c: CheckContext, s: Session): Promise<WireResponse> {
  return c.http.request(c.target.mcpUrl, { method: 'DELETE', headers: { ...baseHeaders(c.target), ...sessionHeaders(s.revision, s.id) } });
}

/**
 * Opens a session of the check's own; a reply without `Mcp-Session-Id` ends the check as not applicable.
 * `announce`: send `notifications/initialized` in it, as a client does next (not before its id is judged).
 */
async function openSession(c: CheckContext, announce = true): Promise<Session> {
  const revision = revisionOf(c);
  if (revision === undefined) c.notTestable('the target speaks no 2025-era revision: there is no initialize and no session');
  const res = await initialize(c, revision!);
  c.verify(res.status === 200 && isObject(finalMessage(res)?.result), `initialize (${revision}) is answered with an InitializeResult`, 200, c.brief(res));
  const id = res.headers['mcp-session-id'];
  if (id === undefined) c.notApplicable(NOT_APPLICABLE);
  const s: Session = { id: id!, revision: revision!, ended: false };
  if (announce) await post(c, s, { jsonrpc: '2.0', method: 'notifications/initialized' });
  return s;
}

/** Ends the check's sessions still open (housekeeping: the answer decides nothing). */
async function cleanUp(c: CheckContext, ...sessions: (Session | undefined)[]): Promise<void> {
  for (const s of sessions) if (s && !s.ended) await deleteSession(c, s).catch(() => undefined);
}

/**
 * An id shaped like `id` (same length, each digit a digit, each letter a letter of its case, hex stays hex,
 * other characters kept) that the server never issued: a server that checks an id's format before looking
 * it up sees a well-formed one.
 */
function sameShape(id: string): string {
  const hex = /^[0-9a-f-]+$/i.test(id);
  const pick = (alphabet: string) => alphabet[randomInt(alphabet.length)]!;
  for (;;) {
    const other = [...id].map((ch) => {
      if (/[0-9]/.test(ch)) return pick('0123456789');
      if (/[a-z]/.test(ch)) return pick(hex ? 'abcdef' : 'abcdefghijklmnopqrstuvwxyz');
      if (/[A-Z]/.test(ch)) return pick(hex ? 'ABCDEF' : 'ABCDEFGHIJKLMNOPQRSTUVWXYZ');
      return ch;
    }).join('');
    if (other !== id || !/[0-9a-z]/i.test(id)) return other === id ? `${id}-unknown` : other;
  }
}

/** The characters of `id` outside 0x21-0x7E, as code points. */
function invisible(id: string): string {
  return [...new Set([...id].filter((ch) => !VISIBLE_ASCII.test(ch)))].map((ch) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(', ') || '(empty)';
}

describe('session', () => {
  // "The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E)."
  check({ ids: 'session-id-visible-ascii', name: 'the Mcp-Session-Id that initialize assigns is visible ASCII (0x21-0x7E) only', generic: true, run: async (c) => {
    const first = await openSession(c, false);
    let second: Session | undefined;
    try {
      c.verify(VISIBLE_ASCII.test(first.id), `the session id ${JSON.stringify(first.id)} has characters outside 0x21-0x7E: ${invisible(first.id)}`, 'visible ASCII only (0x21-0x7E)', first.id);
      // "The session ID SHOULD be globally unique and cryptographically secure": not judged from outside, only seen.
      second = await openSession(c, false);
      c.observe(second.id === first.id ? 'two initializes got the same session id (it SHOULD be globally unique)' : `two initializes got distinct session ids (${first.id.length} characters)`);
    } finally {
      await cleanUp(c, first, second?.id === first.id ? undefined : second);
    }
  } });

  // "The server MAY terminate the session at any time, after which it MUST respond to requests containing that
  // session ID with HTTP 404 Not Found." A session the client ends with DELETE is one the server terminated.
  check({ ids: 'session-terminated-404', name: 'requests in a session the server ended (DELETE accepted) get 404 Not Found', generic: true, run: async (c) => {
    const s = await openSession(c);
    try {
      const del = await deleteSession(c, s);
      if (del.status === 405) c.notTestable('the server does not allow clients to terminate sessions (DELETE answered 405, as it MAY): no session can be ended on demand');
      if (!is2xx(del.status)) c.notTestable(`DELETE in the session answered ${del.status}, so no session could be ended on demand (session-delete-ends judges that answer)`);
      s.ended = true;
      const list = await toolsList(c, s);
      c.verify(list.status === 404, `tools/list in the ended session answered ${list.status}`, 404, c.brief(list));
      const again = await deleteSession(c, s);
      c.verify(again.status === 404, `a second DELETE of the ended session answered ${again.status}`, 404, c.brief(again));
    } finally {
      await cleanUp(c, s);
    }
  } });

  // Rule 3 applied to an id the server never issued: to the client that is a session that has ended (expired,
  // lost in a restart), and 404 is what tells it to start a new one (rule 4); 400 leaves it stuck.
  check({ ids: 'session-unknown-404', name: 'a request with a session id the server never issued gets 404 Not Found', generic: true, run: async (c) => {
    const s = await openSession(c);
    try {
      const unknown: Session = { ...s, id: sameShape(s.id) };
      const list = await toolsList(c, unknown);
      c.verify(list.status === 404, `tools/list with the session id ${unknown.id}, never issued, answered ${list.status}`, 404, c.brief(list));
    } finally {
      await cleanUp(c, s);
    }
  } });

  // "When a client receives HTTP 404 in response to a request containing an Mcp-Session-Id, it MUST start a new
  // session by sending a new InitializeRequest without a session ID attached." The server must let it.
  check({ ids: 'session-new-after-404', name: 'after its session ended, a client starts a new one with a fresh initialize, and it serves requests', generic: true, run: async (c) => {
    const old = await openSession(c);
    let fresh: Session | undefined;
    try {
      const del = await deleteSession(c, old);
      let gone: Session = old;
      if (is2xx(del.status)) old.ended = true;
      else {
        // The server keeps the session: an id it does not hold stands in for an ended one.
        gone = { ...old, id: sameShape(old.id) };
        c.observe(`DELETE answered ${del.status}: a session id the server never issued stands in for an ended session`);
      }
      const refused = await toolsList(c, gone);
      c.observe(`a request in the ended session answered ${refused.status}${refused.status === 404 ? '' : ' (not 404: see session-terminated-404 and session-unknown-404)'}`);
      const init = await initialize(c, old.revision);
      c.verify(init.status === 200 && isObject(finalMessage(init)?.result), 'a new initialize without a session id is answered with an InitializeResult', 200, c.brief(init));
      const id = init.headers['mcp-session-id'];
      c.verify(id !== undefined, 'the new initialize assigns a session id, as the first one did', 'an Mcp-Session-Id header', null);
      fresh = { id: id!, revision: old.revision, ended: false };
      if (fresh.id === old.id) c.observe('the new session has the ended session\'s id again (session ids SHOULD be globally unique)');
      await post(c, fresh, { jsonrpc: '2.0', method: 'notifications/initialized' });
      const list = await toolsList(c, fresh);
      c.verify(list.status === 200 && Array.isArray(finalMessage(list)?.result?.tools), 'tools/list in the new session is served', 200, c.brief(list));
    } finally {
      await cleanUp(c, old, fresh);
    }
  } });

  // "Clients that no longer need a particular session [...] SHOULD send an HTTP DELETE to the MCP endpoint with the
  // Mcp-Session-Id header, to explicitly terminate the session. The server MAY respond to this request with HTTP 405
  // Method Not Allowed, indicating that the server does not allow clients to terminate sessions."
  check({ ids: 'session-delete-ends', name: 'DELETE with the session id ends the session (later requests refused), or is refused with 405', generic: true, run: async (c) => {
    const s = await openSession(c);
    try {
      const del = await deleteSession(c, s);
      if (del.status === 405) {
        c.observe('DELETE answered 405: the server does not allow clients to terminate sessions (it MAY)');
        return;
      }
      c.verify(is2xx(del.status), `DELETE with the session id answered ${del.status}`, '2xx (the session ended) or 405 (clients may not end sessions)', c.brief(del));
      s.ended = true;
      const list = await toolsList(c, s);
      c.verify(!is2xx(list.status), `DELETE answered ${del.status}, yet the session still serves tools/list`, 'the ended session refused (404)', c.brief(list));
    } finally {
      await cleanUp(c, s);
    }
  } });
});

export default seal();
