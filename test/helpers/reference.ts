import { startReferenceServer, type ReferenceServer } from '../../service/reference-server/app.js';
import type { ConfigOverrides } from '../../service/reference-server/config.js';

export type { ReferenceServer };

/** A reference server on a free loopback port with fast streaming, for tests. */
export function startReference(overrides: ConfigOverrides = {}): Promise<ReferenceServer> {
  return startReferenceServer({ streaming: { steps: 3, stepDelayMs: 20 }, bootstrapRateLimit: { ratePerSecond: 1000, burst: 1000 }, ...overrides });
}

let counter = 0;

export interface Bootstrapped {
  apiKey: string;
  claimUrl: string;
  workspace: { id: string; name: string; plan: string };
  canvas: { id: string; name: string };
}

export async function bootstrap(server: { baseUrl: string }, body: Record<string, unknown> = {}): Promise<Bootstrapped> {
  counter += 1;
  const res = await fetch(`${server.baseUrl}/api/agent/bootstrap`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ humanEmail: `human${counter}@example.com`, agentName: 'test-agent', workspaceName: `ws-${counter}`, canvasName: 'canvas', ...body }),
  });
  if (res.status !== 201) throw new Error(`bootstrap failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as Bootstrapped;
}
