import { fill, type CallRecipe } from './profile.js';
import type { TargetInfo } from './target-info.js';
import type { WireClient, WireResponse } from './wire/client.js';

export interface PostOptions {
  /** The key to send: the target's by default, `null` for no Authorization header, or another value. */
  key?: string | null;
  headers?: Record<string, string>;
  timeoutMs?: number;
  signal?: AbortSignal;
}

let nextId = 1;

/** MCP over the target's endpoint: JSON-RPC bodies, the target's key and headers, recorded on the wire. */
export class McpSession {
  constructor(readonly http: WireClient, readonly target: TargetInfo) {}

  headers(options: PostOptions = {}): Record<string, string> {
    const key = options.key === undefined ? this.target.apiKey : options.key;
    return {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...this.target.headers,
      ...(key !== null && key !== undefined && { authorization: `Bearer ${key}` }),
      ...options.headers,
    };
  }

  /** POSTs any body (a value, or raw text when `raw` is a string). */
  post(body: unknown, options: PostOptions & { raw?: string } = {}): Promise<WireResponse> {
    return this.http.request(this.target.mcpUrl, {
      method: 'POST',
      headers: this.headers(options),
      ...(options.raw !== undefined ? { raw: options.raw } : { json: body }),
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
  }

  request(method: string, params?: Record<string, unknown>, options: PostOptions & { id?: string | number } = {}): Promise<WireResponse> {
    const id = options.id ?? nextId++;
    return this.post({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) }, options);
  }

  call(tool: string, args: Record<string, unknown> = {}, options: PostOptions & { id?: string | number; progressToken?: string | number } = {}): Promise<WireResponse> {
    const params: Record<string, unknown> = { name: tool, arguments: args };
    if (options.progressToken !== undefined) params._meta = { progressToken: options.progressToken };
    return this.request('tools/call', params, options);
  }

  /** Runs a recipe with `{{vars}}` filled, and captures the values it names into `vars`. */
  async recipe(recipe: CallRecipe, vars: Record<string, unknown>, options: PostOptions & { id?: string | number; progressToken?: string | number } = {}): Promise<WireResponse> {
    const res = await this.call(recipe.tool, fill(recipe.arguments, vars) as Record<string, unknown>, options);
    const result = finalMessage(res)?.result;
    for (const [name, pointer] of Object.entries(recipe.capture ?? {})) vars[name] = jsonPointer(result?.structuredContent, pointer);
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
