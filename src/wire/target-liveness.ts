import { connect } from 'node:net';
import type { Exchange } from './exchange.js';

/**
 * Whether the target went away in the middle of a run (killed, crashed, its port closed): then a request that
 * failed to connect or was cut off says nothing about the service's conformance, and the checks it ended are
 * left unjudged (issue 24: "A target that stops answering is said once, with the time and the last request
 * that reached it"). A service that resets one connection on purpose still answers the next one: only a target
 * that accepts no connection at all is gone.
 */

/** Errors of the connection itself (no HTTP reply), as undici and node report them. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CLOSED']);

export function isConnectionError(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown; message?: string } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (e.code && CONNECTION_CODES.has(e.code)) return true;
    if (/ECONNREFUSED|ECONNRESET|other side closed|socket hang up|fetch failed/.test(e.message ?? '')) return true;
  }
  return false;
}

/** How long a TCP connect to the target may take before the target counts as gone. */
const PROBE_MS = 2000;

/** The origins a run found gone: once gone, a target stays gone for the run (it is not probed again); another run probes afresh. */
export class TargetLiveness {
  private readonly goneOrigins = new Set<string>();

  /** Whether nothing accepts a TCP connection at the URL's host and port any more. */
  gone(url: string): Promise<boolean> {
    return probeGone(url, this.goneOrigins);
  }
}

async function probeGone(url: string, gone: Set<string>): Promise<boolean> {
  const { hostname, port, protocol, origin } = new URL(url);
  if (gone.has(origin)) return true;
  const alive = await new Promise<boolean>((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) || (protocol === 'https:' ? 443 : 80) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(PROBE_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
  if (!alive) gone.add(origin);
  return !alive;
}

/** The exchange that shows the target gone: the last one that got no reply for want of a connection. */
export function lostExchange(wire: readonly Exchange[]): Exchange | undefined {
  return [...wire].reverse().find((x) => !x.response && x.error !== undefined && isConnectionError({ message: x.error }));
}
