import { Agent, Client, fetch as undiciFetch, request as undiciRequest, type Dispatcher } from 'undici';

/**
 * The connections a run opens, and how a request that met a dead one is sent again.
 *
 * Each run owns its connection pool (an undici Agent, src/engine/run-state.ts), closed when the run ends: runs in
 * one process share no kept-alive connection, and none outlives its run. (undici's global dispatcher, which
 * every request used before, kept the first run's connections open into the next run.)
 *
 * A kept-alive connection the server closed while it sat idle fails the next request sent on it before any
 * byte of a reply comes back ("other side closed", a reset). The server never read that request: it is the
 * connection's end, not the server's answer. On a starved machine the harness's event loop learns late that
 * the server closed its idle connections, so every idle connection of the pool may be dead at once, and a
 * retry through the pool can meet the next dead one: the retry goes over a connection of its own instead.
 */
export function newRunPool(): Agent {
  return new Agent({
    // The server's Keep-Alive hint less 2 s (undici's threshold), and never past 4 s: node's servers close an
    // idle connection after 5 s, and a busy harness reads that close late.
    keepAliveMaxTimeout: 4_000,
  });
}

/** Whether a request failed on its connection before any reply: a reset or close, not the server's answer. */
export function isStaleConnection(err: unknown): boolean {
  for (let e = err as { code?: string; message?: string; cause?: unknown } | undefined, depth = 0; e && depth < 3; e = e.cause as typeof e, depth++) {
    if (e.code === 'UND_ERR_SOCKET' || e.code === 'ECONNRESET' || e.code === 'EPIPE' || /other side closed/.test(e.message ?? '')) return true;
  }
  return false;
}

/**
 * Runs `send` on a connection of its own, closed once its request is complete (a fetch's body read, or
 * cancelled): the retry of a request whose pooled connection was dead.
 */
export async function onFreshConnection<T>(url: string, send: (dispatcher: Dispatcher) => Promise<T>): Promise<T> {
  const client = new Client(new URL(url).origin, { pipelining: 1 });
  try {
    return await send(client);
  } finally {
    // close(), not destroy(): it waits for the request in flight, whose body a fetch's caller may read later.
    void client.close().catch(() => {});
  }
}

type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A fetch through the run's pool, for clients the harness does not write (the SDK's transport): a request
 * whose pooled connection was dead before any reply is sent once more on a connection of its own, when its
 * body can be sent again.
 */
export const poolFetch = (pool: Dispatcher): Fetch => async (input, init) => {
  const send = (dispatcher: Dispatcher) => undiciFetch(input, { ...(init as object), dispatcher } as Parameters<typeof undiciFetch>[1]) as unknown as Promise<Response>;
  try {
    return await send(pool);
  } catch (err) {
    const replayable = init?.body === undefined || init.body === null || typeof init.body === 'string';
    if (!replayable || init?.signal?.aborted || !isStaleConnection(err)) throw err;
    return onFreshConnection(String(input), send);
  }
};

type RequestOptions = NonNullable<Parameters<typeof undiciRequest>[1]>;

/**
 * undici's request through the run's pool, for the harness's housekeeping (revision detection, sessions, the
 * admin channel): a request whose pooled connection was dead before any reply goes once more on its own.
 */
export async function poolRequest(pool: Dispatcher, url: string, options: RequestOptions): Promise<Dispatcher.ResponseData<unknown>> {
  try {
    return await undiciRequest(url, { ...options, dispatcher: pool });
  } catch (err) {
    if (!isStaleConnection(err) || (options.signal as AbortSignal | undefined)?.aborted) throw err;
    return onFreshConnection(url, (dispatcher) => undiciRequest(url, { ...options, dispatcher }));
  }
}
