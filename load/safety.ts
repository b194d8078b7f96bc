/**
 * Load and probes may only hit loopback unless the user says otherwise, and every run is bounded:
 * these are the guards every load command goes through before it sends a request.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Hard caps, whatever the options say. */
export const CAPS = {
  /** Seconds of load in one run. */
  durationS: 300,
  /** Requests in one run (autocannon stops itself there; k6 runs are sized under it). */
  requests: 2_000_000,
  /** Concurrent connections. */
  connections: 1000,
  /** Offered arrival rate, requests per second. */
  rate: 50_000,
} as const;

export class UnsafeTargetError extends Error {}

function isLoopbackAddress(address: string): boolean {
  if (isIP(address) === 4) return address.startsWith('127.');
  const lower = address.toLowerCase();
  return lower === '::1' || lower.startsWith('::ffff:127.');
}

/**
 * A target is loopback when its host name resolves only to loopback addresses. Anything else needs
 * `--allow-remote`: load and probes are traffic someone else pays for.
 */
export async function assertLoadTarget(baseUrl: string, allowRemote: boolean): Promise<{ loopback: boolean }> {
  const url = new URL(baseUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch (err) {
    throw new UnsafeTargetError(`cannot resolve ${host}: ${(err as Error).message}`);
  }
  const loopback = addresses.length > 0 && addresses.every(isLoopbackAddress);
  if (!loopback && !allowRemote) {
    throw new UnsafeTargetError(`${url.origin} is not a loopback address (${addresses.join(', ')}); load and probes refuse remote targets unless --allow-remote is given`);
  }
  return { loopback };
}

/** Checks a numeric option against its cap; returns the message of the usage error, if any. */
export function capProblem(name: string, value: number, min: number, cap: number): string | undefined {
  if (!Number.isFinite(value) || value < min || value > cap) return `${name} must be from ${min} to ${cap} (got ${value})`;
  return undefined;
}
