import type { RunState } from '../engine/run-state.js';
import type { Revision } from '../catalog/types.js';
import type { TargetInfo } from './target-info.js';
import { openSession, sessionRevision, type OpenedSession } from './session-lifecycle.js';

/** Sessions left behind by a rotation that stay open until the check ends (the newest ones). */
const OLD_SESSIONS_KEPT = 4;
/** "If the server does not receive an MCP-Protocol-Version header ... the server SHOULD assume protocol version 2025-03-26." */
const ASSUMED_REVISION: Revision = '2025-03-26';

/**
 * Sessions of a check's own, for requests whose ids are the check's subject (0, "", an id a property generated):
 * such ids repeat, and "The request ID MUST NOT have been previously used by the requestor within the same
 * session" (MCP basic/index). Each id goes to a session where it is new: the current one while it is, else a
 * fresh session. A request meant for a revision goes to a session negotiated at that revision (one without the
 * MCP-Protocol-Version header, at 2025-03-26, the revision such a request is assumed to speak), so a rule of
 * 2025-03-26 is tried on 2025-03-26. On a server that keeps no session (the run holds none) there is nothing
 * to keep apart: requests go out as they are, without the header.
 */
export class OwnSessions {
  /** The current session of each revision. */
  private readonly current = new Map<Revision, { session: OpenedSession; used: Set<string> }>();
  private old: OpenedSession[] = [];
  private readonly ended: Promise<void>[] = [];
  /** Requests sent side by side take their sessions one after another. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly run: RunState, private readonly info: TargetInfo) {}

  /**
   * The `Mcp-Session-Id` header to send `body` (JSON text, or a value) with under `revision` (its
   * MCP-Protocol-Version; absent, none): a session of that revision where none of the body's request ids was used.
   * No header on a server that keeps no session.
   */
  async headersFor(body: unknown, revision?: Revision): Promise<Record<string, string>> {
    if (this.info.sessionId === undefined) return {};
    const next = this.queue.then(() => this.take(requestIdsIn(body), revision ?? ASSUMED_REVISION));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async take(ids: string[], revision: Revision): Promise<Record<string, string>> {
    let current = this.current.get(revision);
    if (!current || ids.some((id) => current!.used.has(id))) current = await this.rotate(revision);
    for (const id of ids) current?.used.add(id);
    // A server that stopped granting sessions: the run's own one is all there is.
    return { 'mcp-session-id': current?.session.sessionId ?? this.info.sessionId! };
  }

  private async rotate(revision: Revision): Promise<{ session: OpenedSession; used: Set<string> } | undefined> {
    const before = this.current.get(revision);
    if (before) this.old.push(before.session);
    // A request given a session may still be on its way: old sessions end with the check, but never more than a
    // few stay open (a property's requests go one at a time, so the oldest are done).
    while (this.old.length > OLD_SESSIONS_KEPT) this.ended.push(this.old.shift()!.close());
    // A revision the server does not negotiate (or the 2026-07-28 wire, which has no sessions): its newest session revision.
    const at = this.info.revisions.includes(revision) && revision !== '2026-07-28' ? revision : sessionRevision(this.info);
    const session = at ? await openSession(this.run, this.info, at) : undefined;
    const next = session ? { session, used: new Set<string>() } : undefined;
    if (next) this.current.set(revision, next);
    else this.current.delete(revision);
    return next;
  }

  /** Ends the sessions opened. */
  async close(): Promise<void> {
    for (const session of [...this.old, ...[...this.current.values()].map((c) => c.session)]) this.ended.push(session.close());
    this.old = [];
    this.current.clear();
    await Promise.all(this.ended);
  }
}

/** Runs `work` with sessions of its own on `info`'s target, and ends them whatever `work` does. */
export async function withOwnSessions<T>(run: RunState, info: TargetInfo, work: (own: OwnSessions) => Promise<T>): Promise<T> {
  const own = new OwnSessions(run, info);
  try {
    return await work(own);
  } finally {
    await own.close();
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
