import type { TargetInfo } from '../target-info.js';
import { openSession, sessionRevision, type OpenedSession } from './session-lifecycle.js';

/**
 * Sessions of a check's own, for requests whose ids are the check's subject (0, "", an id a property generated):
 * such ids repeat, and "The request ID MUST NOT have been previously used by the requestor within the same
 * session" (MCP basic/index). Each id goes to a session where it is new: the current one while it is, else a
 * fresh session (the old one is ended). On a server that keeps no session there is nothing to keep apart, and
 * requests go out as they are.
 */
/** Sessions left behind by a rotation that stay open until the check ends (the newest ones). */
const OLD_SESSIONS_KEPT = 4;

export class OwnSessions {
  private current: { session: OpenedSession; used: Set<string> } | undefined;
  private old: OpenedSession[] = [];
  private readonly ended: Promise<void>[] = [];
  /** Requests sent side by side take their sessions one after another. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly info: TargetInfo) {}

  /** Sessions for a check on `info`; undefined when the run keeps no session (the target keeps none). */
  static for(info: TargetInfo): OwnSessions | undefined {
    return info.sessionId !== undefined ? new OwnSessions(info) : undefined;
  }

  /** The `Mcp-Session-Id` header to send `body` (JSON text, or a value) with: a session where none of its request ids was used. */
  headersFor(body: unknown): Promise<Record<string, string>> {
    const next = this.queue.then(() => this.take(requestIdsIn(body)));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async take(ids: string[]): Promise<Record<string, string>> {
    if (!this.current || ids.some((id) => this.current!.used.has(id))) await this.rotate();
    for (const id of ids) this.current?.used.add(id);
    // A server that stopped granting sessions: the run's own one is all there is.
    return { 'mcp-session-id': this.current?.session.sessionId ?? this.info.sessionId! };
  }

  private async rotate(): Promise<void> {
    if (this.current) this.old.push(this.current.session);
    // A request given a session may still be on its way: old sessions end with the check, but never more than a
    // few stay open (a property's requests go one at a time, so the oldest are done).
    while (this.old.length > OLD_SESSIONS_KEPT) this.ended.push(this.old.shift()!.close());
    const revision = sessionRevision(this.info);
    const session = revision ? await openSession(this.info, revision) : undefined;
    this.current = session ? { session, used: new Set() } : undefined;
  }

  /** Ends the sessions opened. */
  async close(): Promise<void> {
    for (const session of [...this.old, ...(this.current ? [this.current.session] : [])]) this.ended.push(session.close());
    this.old = [];
    this.current = undefined;
    await Promise.all(this.ended);
  }
}

/** The ids of the requests in a JSON-RPC body or batch (members with a method and an id), as JSON text. */
export function requestIdsIn(body: unknown): string[] {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return []; // not JSON: no request the server could read
    }
  }
  const items = Array.isArray(value) ? value : [value];
  return items.filter((m) => typeof m === 'object' && m !== null && 'method' in m && 'id' in m).map((m) => JSON.stringify((m as { id: unknown }).id));
}
