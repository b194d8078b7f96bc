import { adminPost } from '../targets/admin-call.js';
import type { CheckContext } from '../engine/check.js';
import { bootstrapWorkspace } from '../judging/fresh-workspace.js';

/**
 * Keys for property checks. Properties send thousands of requests and must start from known state, so each
 * gets workspaces of its own: from the embedded target's admin channel (on a plan of its choice, by default
 * without rate limits), else from the bootstrap endpoint, else the target's key as a last resort.
 */
export async function freshKey(c: CheckContext, purpose: string, plan = 'unlimited'): Promise<string> {
  const { admin } = c.target;
  if (admin) {
    const { apiKey } = await adminCall(c, '/workspaces/create', { plan, label: purpose }) as { apiKey: string };
    c.addSecret(apiKey);
    return apiKey;
  }
  const own = await bootstrapWorkspace(c.run, c.target, [], 'fresh-key');
  if (own.key) {
    c.addSecret(own.key);
    return own.key;
  }
  c.observe(`${purpose}: ${own.note}`);
  if (!c.target.apiKey) c.notTestable(c.target.noKeyReason ?? 'no key: the target has no bootstrap endpoint the harness may use and no --api-key was given');
  c.observe(`${purpose}: no workspace of its own; using the target's key (its state and rate bucket are shared)`);
  return c.target.apiKey;
}

/** Whether keys can be minted and revoked (the service does this in its admin settings, not over MCP). */
export function canAdminister(c: CheckContext): boolean {
  return c.target.admin !== undefined;
}

/** A second key of the workspace `key` belongs to. */
export async function mintSibling(c: CheckContext, key: string): Promise<string> {
  const { apiKey } = await adminCall(c, '/keys/mint', { key, label: 'property sibling' }) as { apiKey: string };
  c.addSecret(apiKey);
  return apiKey;
}

export async function revokeKey(c: CheckContext, key: string): Promise<void> {
  await adminCall(c, '/keys/revoke', { key });
}

async function adminCall(c: CheckContext, path: string, body: unknown): Promise<unknown> {
  const admin = c.target.admin;
  if (!admin) c.notTestable('minting and revoking keys needs the admin settings of the deployment; only the embedded target offers them to the harness');
  const res = await adminPost(c.run.pool, admin, path, body);
  const json = res.json() as { error?: string };
  if (res.status !== 200) throw new Error(`admin channel ${path}: ${res.status} ${json.error ?? ''}`);
  return json;
}
