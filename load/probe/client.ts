/**
 * The probe's one kind of request: a cheap stateless POST (`tools/list`, from the shared scenarios) with a
 * given key, sent through an undici pool, answered with what the probe needs to know about the reply
 * (status, time, the rate-limit header fields, the JSON-RPC error code of a 429). Keys go into the
 * Authorization header and nowhere else: a reply record never holds one.
 */
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { refuseRedirect } from '../../src/wire/redirect.js';
import { MCP_PATH, requestHeaders, scenarioByName } from '../scenarios.js';

/** The rate-limit header fields the probe records (lower case), and nothing else of a reply's headers. */
export const RATE_LIMIT_FIELDS = [
  'retry-after', 'date', 'ratelimit-policy', 'ratelimit', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset',
  'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset',
] as const;

export interface ProbeReply {
  /** HTTP status; 0 when no reply came (connection error, timeout, abort). */
  status: number;
  /** ms since the probe's clock origin. */
  sentAt: number;
  receivedAt: number;
  /** The rate-limit fields of the reply, comma-joined when repeated. */
  headers: Partial<Record<(typeof RATE_LIMIT_FIELDS)[number], string>>;
  /** JSON-RPC `error.code` of a 429's body, when it has one. */
  rpcCode?: number;
  /** Why there was no reply (status 0), or why the reply was refused (a redirect: never followed). */
  error?: string;
}

export class RequestBudgetExhausted extends Error {}

const TOOLS_LIST = JSON.stringify(scenarioByName('tools-list')!.requests[0]!.body);

export interface ProbeClientOptions {
  /** The service's base URL (the MCP path is added). */
  baseUrl: string;
  /** Connections of the pool = most requests in flight at once. */
  connections: number;
  /** Requests this client may send in all; beyond it `send` throws RequestBudgetExhausted. */
  maxRequests: number;
  timeoutMs: number;
  /** Aborts every request in flight (the probe's hard deadline). */
  signal?: AbortSignal;
  /** Sees every reply (the probe counts its 429s and keeps sample fields). */
  onReply?: (reply: ProbeReply) => void;
}

export class ProbeClient {
  private readonly pool: Pool;
  private readonly path: string;
  private sentCount = 0;
  private inFlightCount = 0;
  /** Clock origin of every timestamp in the replies. */
  readonly origin = performance.now();

  constructor(private readonly options: ProbeClientOptions) {
    // Every request in flight listens on the one deadline signal.
    if (options.signal) setMaxListeners(0, options.signal);
    this.path = `${new URL(options.baseUrl).pathname.replace(/\/$/, '')}${MCP_PATH}`;
    this.pool = new Pool(new URL(options.baseUrl).origin, {
      connections: options.connections,
      pipelining: 1,
      keepAliveTimeout: 10_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  get sent(): number {
    return this.sentCount;
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  get remaining(): number {
    return this.options.maxRequests - this.sentCount;
  }

  now(): number {
    return performance.now() - this.origin;
  }

  /** One tools/list POST with `key`. Never rejects except for the request budget. */
  async send(key: string): Promise<ProbeReply> {
    if (this.sentCount >= this.options.maxRequests) throw new RequestBudgetExhausted(`the request cap (${this.options.maxRequests}) is reached`);
    this.sentCount++;
    this.inFlightCount++;
    const sentAt = this.now();
    try {
      const res = await this.pool.request({
        path: this.path,
        method: 'POST',
        headers: requestHeaders(key),
        body: TOOLS_LIST,
        ...(this.options.signal && { signal: this.options.signal }),
      });
      const headers: ProbeReply['headers'] = {};
      for (const name of RATE_LIMIT_FIELDS) {
        const v = res.headers[name];
        if (v !== undefined) headers[name] = Array.isArray(v) ? v.join(', ') : v;
      }
      let rpcCode: number | undefined;
      if (res.statusCode === 429) {
        const text = await res.body.text();
        try {
          const code = (JSON.parse(text) as { error?: { code?: unknown } })?.error?.code;
          if (typeof code === 'number') rpcCode = code;
        } catch {
          // not JSON: no code to record
        }
      } else {
        await res.body.dump({ limit: Number.MAX_SAFE_INTEGER });
      }
      // undici's pool never follows a redirect; one met is named (it is no answer of the endpoint: not 2xx, not 429).
      const location = res.headers.location;
      const refusal = refuseRedirect('POST', `${new URL(this.options.baseUrl).origin}${this.path}`, res.statusCode, Array.isArray(location) ? location[0] : location);
      const reply: ProbeReply = {
        status: res.statusCode, sentAt, receivedAt: this.now(), headers, ...(rpcCode !== undefined && { rpcCode }), ...(refusal && { error: refusal.message }),
      };
      this.options.onReply?.(reply);
      return reply;
    } catch (err) {
      // Error messages of undici name the origin and the cause, never request headers.
      const reply: ProbeReply = { status: 0, sentAt, receivedAt: this.now(), headers: {}, error: (err as Error).message };
      this.options.onReply?.(reply);
      return reply;
    } finally {
      this.inFlightCount--;
    }
  }

  /** `send`, or undefined once the request budget is spent. */
  async trySend(key: string): Promise<ProbeReply | undefined> {
    try {
      return await this.send(key);
    } catch (err) {
      if (err instanceof RequestBudgetExhausted) return undefined;
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}

export const is2xx = (status: number) => status >= 200 && status < 300;
export const isOk = (r: ProbeReply) => is2xx(r.status);
export const isThrottled = (r: ProbeReply) => r.status === 429;
