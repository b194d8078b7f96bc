/**
 * Where load and probes go: the reference server in a child process (embedded, the default), any base URL,
 * or the repository's image in a container. Every kind passes the safety guard and is announced on stderr
 * before the first request.
 */
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import type { ConfigOverrides } from '../service/reference-server/config.js';
import { spawnServerChild } from '../src/kit/server-child.js';
import { bootstrapKey } from '../src/targets/bootstrap-keys.js';
import { startReferenceContainer } from '../src/targets/container.js';
import { TargetError } from '../src/targets/target.js';
import { assertLoadTarget } from './safety.js';
import { MCP_PATH } from './scenarios.js';
import { PACKAGE_ROOT } from '../src/kit/package-root.js';

export type LoadTargetKind = 'embedded' | 'url' | 'container';
export const LOAD_TARGET_KINDS: readonly LoadTargetKind[] = ['embedded', 'url', 'container'];

export interface LoadTargetOptions {
  kind: LoadTargetKind;
  /** url target. */
  baseUrl?: string;
  /** A live key; without it one comes from the bootstrap endpoint. Never printed. */
  apiKey?: string;
  allowRemote: boolean;
  timeoutMs?: number;
  /** Reference configuration for the embedded and container targets (default: bootstrapped workspaces unthrottled). */
  reference?: ConfigOverrides;
  /** Embedded only: a deliberately broken variant (the harness's own tests). */
  mutant?: string;
  /** Where the announcement goes (default stderr). */
  log?: (line: string) => void;
}

export interface LoadTarget {
  kind: LoadTargetKind;
  baseUrl: string;
  mcpUrl: string;
  apiKey: string;
  /** Embedded only: the loopback admin channel (workspaces on a chosen plan, sibling keys, revocation). */
  admin?: { url: string; token: string };
  /** The server's CPU time so far (µs) and resident memory (bytes), where the harness can read them (embedded: its child process). */
  serverStats?: () => Promise<{ cpuMicros?: number; rssBytes?: number }>;
  /** One line for reports: what was loaded, never a key. */
  description: string;
  close(): Promise<void>;
}

const ROOT = PACKAGE_ROOT;

/** Load runs must measure the service, not the plan: bootstrapped workspaces get no rate limit by default. */
export const UNTHROTTLED: ConfigOverrides = { bootstrapPlan: 'unlimited', bootstrapRateLimit: { ratePerSecond: 1000, burst: 1000 } };

export async function prepareLoadTarget(options: LoadTargetOptions): Promise<LoadTarget> {
  const log = options.log ?? ((line: string) => console.error(line));
  const timeoutMs = options.timeoutMs ?? 10_000;
  const reference = options.reference ?? UNTHROTTLED;
  if (options.mutant && options.kind !== 'embedded') throw new TargetError('--mutant works with the embedded target only');

  if (options.kind === 'url') {
    if (!options.baseUrl) throw new TargetError('--target url needs --base-url');
    const baseUrl = options.baseUrl.replace(/\/$/, '');
    const { loopback } = await assertLoadTarget(baseUrl, options.allowRemote);
    log(`target: ${baseUrl}${loopback ? '' : ' (REMOTE: --allow-remote given)'}`);
    const apiKey = options.apiKey ?? (await bootstrapKey(baseUrl, 'load', timeoutMs)).apiKey;
    return { kind: 'url', baseUrl, mcpUrl: `${baseUrl}${MCP_PATH}`, apiKey, description: `url ${baseUrl}`, close: async () => {} };
  }

  if (options.kind === 'container') {
    const started = await startReferenceContainer(reference, (m) => log(`container: ${m}`));
    try {
      await assertLoadTarget(started.baseUrl, false);
      log(`target: reference server in a container at ${started.baseUrl}`);
      const apiKey = options.apiKey ?? (await bootstrapKey(started.baseUrl, 'load', timeoutMs)).apiKey;
      return { kind: 'container', baseUrl: started.baseUrl, mcpUrl: `${started.baseUrl}${MCP_PATH}`, apiKey, description: `container ${started.baseUrl}`, close: started.close };
    } catch (err) {
      await started.close();
      throw err;
    }
  }

  const child = await spawnServerChild({
    name: 'reference server',
    script: 'load/reference-child.ts',
    cwd: ROOT,
    nodeArgs: ['--max-semi-space-size=32'],
    args: ['--config', JSON.stringify(reference), ...(options.mutant ? ['--mutant', options.mutant] : [])],
  });
  try {
    log(`target: embedded reference server (its own process, pid ${child.pid}) at ${child.url}${options.mutant ? `, mutant ${options.mutant}` : ''}`);
    const apiKey = options.apiKey ?? (await bootstrapKey(child.url, 'load', timeoutMs)).apiKey;
    return {
      kind: 'embedded',
      baseUrl: child.url,
      mcpUrl: `${child.url}${MCP_PATH}`,
      apiKey,
      ...(child.admin && { admin: child.admin }),
      serverStats: async () => ({ cpuMicros: await child.cpuMicros(), ...residentBytes(child.pid) }),
      description: `embedded reference server ${child.url}${options.mutant ? ` (mutant ${options.mutant})` : ''}`,
      close: async () => {
        await child.stop();
      },
    };
  } catch (err) {
    await child.stop();
    throw err;
  }
}

/** A process's resident memory from /proc (Linux), or nothing where it cannot be read. */
export function residentBytes(pid: number): { rssBytes?: number } {
  try {
    const kib = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? {} : { rssBytes: Number(kib) * 1024 };
  } catch {
    return {};
  }
}

/** The admin channel's answer, or an error naming the path (never the token or a key). */
async function adminPost(admin: { url: string; token: string }, path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await request(`${admin.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.token}` },
    body: JSON.stringify(body),
  });
  const parsed = (await res.body.json()) as Record<string, unknown>;
  if (res.statusCode !== 200) throw new Error(`admin channel ${path} answered ${res.statusCode}: ${String(parsed.error ?? '')}`);
  return parsed;
}

/** A key of a new workspace on `plan` (embedded target only). */
export async function newWorkspaceKey(target: LoadTarget, plan: string, label: string): Promise<string> {
  if (!target.admin) throw new TargetError('new workspaces on a chosen plan need the embedded target');
  return String((await adminPost(target.admin, '/workspaces/create', { plan, label })).apiKey);
}

/** Another key of the workspace `key` belongs to (embedded target only). */
export async function siblingKey(target: LoadTarget, key: string): Promise<string> {
  if (!target.admin) throw new TargetError('sibling keys need the embedded target (or give them on the command line)');
  return String((await adminPost(target.admin, '/keys/mint', { key, label: 'load sibling' })).apiKey);
}
