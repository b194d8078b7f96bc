import type { Revision } from '../catalog/types.js';
import { fill, type CallRecipe } from '../profile/profile.js';
import { findId } from '../profile/profile-derive.js';
import { primaryRevision, speakRevision, type SpokenRequest } from './revision-wire.js';
import type { TargetInfo } from '../targets/target-info.js';
import { NotTestable } from '../engine/verdict.js';
import type { WireClient, WireResponse } from '../wire/client.js';

export interface PostOptions {
  /** The key to send: the target's by default, `null` for no Authorization header, or another value. */
  key?: string | null;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** How long to read on after the response of a streamed reply (WireRequest.afterResponseMs). */
  afterResponseMs?: number;
  signal?: AbortSignal;
  /**
   * The credential sent is to be refused: the description demands 401 here ("Invalid or expired tokens MUST
   * receive a HTTP 401 response"), so a 429 is the reply to judge, not a throttle to wait out.
   */
  refusal?: boolean;
}

/** How long a notifications/cancelled may take: it is sent as the harness gives up, never worth more. */
const CANCEL_TIMEOUT_MS = 2_000;

/**
 * MCP over the target's endpoint: JSON-RPC bodies, the target's key and headers, recorded on the wire.
 * Every request speaks the session's protocol revision (src/mcp/revision-wire.ts): its `MCP-Protocol-Version`
 * and, on 2026-07-28, the `_meta` envelope and `Mcp-Method`/`Mcp-Name`. Headers a check passes explicitly win.
 * A 429 is retried a few times after its Retry-After, so the harness's own traffic does not fail
 * unrelated checks on a rate-limited deployment; checks that study rate limiting turn that off.
 */
export class McpSession {
  /** The revision every request speaks; undefined: no revision headers (the target speaks none detected). */
  readonly revision: Revision | undefined;

  /**
   * `revision`: the revision to speak (a check's); absent, the run's primary revision; null, none at all.
   */
  constructor(readonly http: WireClient, readonly target: TargetInfo, readonly options: { revision?: Revision | null } = {}) {
    this.revision = options.revision === undefined ? primaryRevision(http.run.settings.protocol, target.revisions ?? []) : options.revision ?? undefined;
  }

  /** The request's revision wire for `body` (undefined: raw text, not decorated). */
  private speak(options: PostOptions, body?: unknown): SpokenRequest {
    return speakRevision(this.revision, body, { ...this.target.headers, ...options.headers });
  }

  /** The headers of a request; `body` (a JSON-RPC message) lets the 2026-07-28 headers derive from it. */
  headers(options: PostOptions = {}, body?: unknown): Record<string, string> {
    const key = options.key === undefined ? this.target.apiKey : options.key;
    // A service target with no key of its own (bootstrap refused, none given): the check cannot judge.
    if (options.key === undefined && key === undefined && this.target.noKeyReason) throw new NotTestable(this.target.noKeyReason);
    return {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...this.speak(options, body).headers,
      ...this.target.headers,
      ...(key !== null && key !== undefined && { authorization: `Bearer ${key}` }),
      ...(this.target.sessionId && { 'mcp-session-id': this.target.sessionId }), // a stateful server's session (session-lifecycle.ts)
      ...options.headers,
    };
  }

  /** POSTs any body (a value, or raw text when `raw` is a string); a well-formed JSON-RPC body speaks the revision. */
  async post(body: unknown, options: PostOptions & { raw?: string } = {}): Promise<WireResponse> {
    const message = options.raw !== undefined ? undefined : body;
    const headers = this.headers(options, message);
    // A 429 is the wire client's to wait out (src/budget/pacer.ts), unless it was made with { pace: false }.
    return this.http.request(this.target.mcpUrl, {
      method: 'POST',
      headers,
      ...(options.raw !== undefined ? { raw: options.raw } : { json: this.speak(options, message).body }),
      timeoutMs: options.timeoutMs,
      ...(options.afterResponseMs !== undefined && { afterResponseMs: options.afterResponseMs }),
      signal: options.signal,
      ...(options.refusal && { throttleIsAnswer: true }),
    });
  }

  request(method: string, params?: Record<string, unknown>, options: PostOptions & { id?: string | number } = {}): Promise<WireResponse> {
    const id = options.id ?? this.http.run.ids.next();
    return this.post({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) }, options);
  }

  call(tool: string, args: Record<string, unknown> = {}, options: PostOptions & { id?: string | number; progressToken?: string | number } = {}): Promise<WireResponse> {
    const params: Record<string, unknown> = { name: tool, arguments: args };
    if (options.progressToken !== undefined) params._meta = { progressToken: options.progressToken };
    return this.request('tools/call', params, options);
  }

  /**
   * "When a party wants to cancel an in-progress request, it sends a notifications/cancelled notification
   * containing the ID of the request to cancel" (MCP utilities/cancellation): the harness stops waiting, so the
   * server may stop working. Never throws: the harness has given up on the request either way.
   */
  async cancel(requestId: string | number, reason: string, options: PostOptions = {}): Promise<void> {
    await this.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } }, { timeoutMs: CANCEL_TIMEOUT_MS, ...options }).catch(() => undefined);
  }

  /** Runs a recipe with `{{vars}}` filled, and captures the values it names into `vars`. */
  async recipe(recipe: CallRecipe, vars: Record<string, unknown>, options: PostOptions & { id?: string | number; progressToken?: string | number } = {}): Promise<WireResponse> {
    const res = await this.call(recipe.tool, fill(recipe.arguments, vars) as Record<string, unknown>, options);
    const result = finalMessage(res)?.result;
    for (const [name, how] of Object.entries(recipe.capture ?? {})) vars[name] = captured(result, how);
    return res;
  }

  /** The profile's setup calls, in order; returns the captured variables. */
  async setup(): Promise<Record<string, unknown>> {
    const vars: Record<string, unknown> = {};
    for (const recipe of this.target.profile.setup) await this.recipe(recipe, vars);
    return vars;
  }
}

/** The final JSON-RPC message of a reply: the JSON body, or the last SSE message. */
export function finalMessage(res: WireResponse): any {
  if (res.messages) return res.messages[res.messages.length - 1];
  return res.json;
}

export function jsonPointer(value: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '/') return value;
  let v: any = value;
  for (const part of pointer.replace(/^\//, '').split('/')) {
    v = v?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return v;
}

/** A value a recipe captures from a tool result: by JSON pointer into structuredContent, or an id found by name. */
export function captured(result: any, how: string | { find: string }): unknown {
  return typeof how === 'string' ? jsonPointer(result?.structuredContent, how) : findId(result?.structuredContent ?? textJson(result), how.find);
}

/** A tool result's first text content parsed as JSON (results without structuredContent), else undefined. */
function textJson(result: any): unknown {
  const text = Array.isArray(result?.content) ? result.content.find((c: any) => c?.type === 'text')?.text : undefined;
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
