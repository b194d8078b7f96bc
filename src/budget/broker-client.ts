import { request } from 'undici';
import type { TargetInfo } from '../target-info.js';
import { takeSpent, type Spent } from './tally.js';
import { keyLedger } from '../wire/key-sightings.js';

async function ask<T>(target: TargetInfo, path: string, body: unknown): Promise<T | undefined> {
  const broker = target.broker;
  if (!broker) return undefined;
  const res = await request(`${broker.url}${path}`, {
    method: 'POST', headers: { authorization: `Bearer ${broker.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const json = await res.body.json() as T & { error?: string };
  if (res.statusCode !== 200) throw new Error(`run broker ${path}: ${res.statusCode} ${json.error ?? ''}`);
  return json;
}

/** How many of `n` bootstrap requests `purpose` may send (all of them when the run has no broker). */
export async function bootstrapPermit(target: TargetInfo, purpose: string, n: number): Promise<{ granted: number; budget?: number }> {
  const reply = await ask<{ granted: number; budget: number | null }>(target, '/permit', { purpose, n });
  if (!reply) return { granted: n };
  return { granted: reply.granted, ...(reply.budget !== null && { budget: reply.budget }) };
}

/** Whether the run's wait budget still covers `ms` more of waiting on a 429 (reserved when it does). */
export async function reserveWait(target: TargetInfo, ms: number): Promise<{ granted: boolean; budgetMs?: number; leftMs?: number }> {
  const reply = await ask<{ granted: boolean; budgetMs: number; leftMs: number }>(target, '/wait', { ms });
  return reply ?? { granted: true };
}

/**
 * Reports a property search's runs so far to the run's status line, when it has one: at most every half
 * second and once at the end, never awaited (progress must not slow the search or fail it).
 */
export function searchReporter(target: TargetInfo, check: string, search: string): { run(runs: number): void; done(runs: number): void } {
  if (!target.broker?.searches) return { run: () => undefined, done: () => undefined };
  let last = -Infinity;
  const post = (runs: number, done: boolean) => void ask(target, '/search', { check, search, runs, done }).catch(() => undefined);
  return {
    run(runs) {
      const now = performance.now();
      if (now - last < 500) return;
      last = now;
      post(runs, false);
    },
    done: (runs) => post(runs, true),
  };
}

/** Hands this worker's counts to the broker. */
export async function flushSpent(target: TargetInfo): Promise<void> {
  const spent: Spent = takeSpent();
  if (!target.broker || Object.values(spent).every((v) => v === 0)) return;
  await ask(target, '/spent', spent);
}

/**
 * Hands this worker's new keys and key sightings to the broker (the main process's ledger), over its
 * token-guarded loopback channel: keys never travel in a record. In the main process itself, nothing to do.
 */
export async function flushKeys(target: TargetInfo): Promise<void> {
  if (!target.broker) return;
  const delta = keyLedger.take();
  if (delta.keys.length === 0 && delta.secrets.length === 0 && delta.sightings.length === 0 && delta.inspected === 0) return;
  await ask(target, '/keys', delta);
}

/** The reason a check gives when its purpose got no share of the bootstrap budget. */
export function budgetSpentReason(purpose: string, budget: number | undefined): string {
  return `the run's bootstrap budget (${budget ?? 'unbounded'} requests) leaves no share for ${purpose}; raise --bootstrap-budget to run it (each bootstrap creates a workspace and mails a human)`;
}

/** What the main process shares under `name` (src/budget/broker.ts `share`), once it is done. */
export async function sharedWork<T>(target: TargetInfo, name: string): Promise<T> {
  const reply = await ask<{ value: T }>(target, '/shared', { name });
  if (!reply) throw new Error(`no run broker to ask for "${name}" (the suite runs inside npm run conformance)`);
  return reply.value;
}
