import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hashKey, mintKey } from '../../service/reference-server/keys.js';
import type { ReferenceConfig } from '../../service/reference-server/config.js';
import { readBody } from '../../service/reference-server/http/respond.js';
import type { Store } from '../../service/reference-server/store.js';

/**
 * What the service's admin settings do (create a workspace, mint a key for a workspace, revoke a key), offered to the suites
 * of the embedded target on a loopback port of its own. Keys are named by a key of the same workspace,
 * never by ids, so a model needs nothing the service does not show. A random token guards it.
 */
export async function startAdminChannel(store: Store, config: ReferenceConfig): Promise<{ url: string; token: string; close(): Promise<void> }> {
  const token = randomBytes(24).toString('hex');
  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    try {
      if (req.method !== 'POST' || !authorised(req, token)) return send(req.method === 'POST' ? 401 : 405, { error: 'POST with the admin token' });
      const read = await readBody(req, 65_536);
      if (!read.ok) return send(413, { error: `body ${read.reason}` });
      const body = JSON.parse(read.body.toString('utf8')) as { key?: unknown; label?: unknown; plan?: unknown };
      if (req.url === '/workspaces/create') {
        // A workspace on a plan of the caller's choice: properties send thousands of requests, which the
        // suites' own plan would (rightly) throttle.
        const plan = String(body.plan ?? 'unlimited');
        if (!config.plans[plan]) return send(400, { error: `no plan "${plan}"` });
        const workspace = store.createWorkspace({ name: String(body.label ?? 'property workspace'), plan });
        store.createCanvas(workspace.id, 'property canvas', null);
        return send(200, { apiKey: mintKey(store, config.keyPrefix, { workspaceId: workspace.id, label: 'property', temporary: false }).key });
      }
      const record = typeof body.key === 'string' ? store.keyByHash(hashKey(body.key)) : undefined;
      if (!record) return send(404, { error: 'no such key' });
      if (req.url === '/keys/mint') {
        const { key } = mintKey(store, config.keyPrefix, { workspaceId: record.workspaceId, label: String(body.label ?? 'model'), temporary: false });
        return send(200, { apiKey: key });
      }
      if (req.url === '/keys/revoke') return send(200, { revoked: store.revokeKey(record.id) });
      return send(404, { error: 'unknown admin action' });
    } catch (err) {
      send(400, { error: (err as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function authorised(req: IncomingMessage, token: string): boolean {
  const given = Buffer.from(String(req.headers.authorization ?? ''));
  const wanted = Buffer.from(`Bearer ${token}`);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}
