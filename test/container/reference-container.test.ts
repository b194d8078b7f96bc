import type { StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureReferenceImage } from '../../src/targets/container.js';
import { loopbackContainer } from '../../src/targets/loopback-container.js';
import { loadTestcontainers } from '../../src/targets/testcontainers.js';
import { bootstrap } from '../helpers/reference.js';
import { post } from '../helpers/mcp-http.js';

// Builds the repository's Dockerfile (unless the container target's image was built from the same
// sources: src/targets/image-fingerprint.ts) and checks that the server in the container answers.
// Needs a Docker-compatible engine: on machines without Docker, podman's socket (see scripts/ and
// test/global-setup.ts). This test fails, never skips, when the engine is missing.

let container: StartedTestContainer | undefined;
let baseUrl: string;

beforeAll(async () => {
  // ensureReferenceImage first asks the engine and the base image, and fails with the setup hint without them.
  const { Wait } = await loadTestcontainers();

  let t = performance.now();
  // The container target's image: built from the Dockerfile unless the tagged image already was, from the
  // same sources, arguments and base image (one build per change, not one per test file).
  let built = '';
  const image = await ensureReferenceImage((m) => (built = m));
  const buildMs = performance.now() - t;

  t = performance.now();
  container = await (await loopbackContainer(image, [8080]))
    .withWaitStrategy(Wait.forHttp('/healthz', 8080).forStatusCode(200))
    .withStartupTimeout(60_000)
    .start();
  const startMs = performance.now() - t;
  baseUrl = `http://${container.getHost()}:${container.getMappedPort(8080)}`;
  console.log(`reference container: ${built} (${(buildMs / 1000).toFixed(1)} s), healthy ${(startMs / 1000).toFixed(1)} s after start, at ${baseUrl}`);
}, 15 * 60_000);

afterAll(async () => {
  await container?.stop({ timeout: 5_000 });
}, 60_000);

describe('the reference server in a container', () => {
  it('listens on loopback only', () => {
    expect(container!.getHost()).toBe('127.0.0.1');
  });

  it('answers /healthz', async () => {
    const res = await fetch(`${baseUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('bootstraps a workspace and lists the tools through the MCP endpoint', async () => {
    const { apiKey } = await bootstrap({ baseUrl });
    expect(apiKey).toMatch(/^cnv_live_[A-Za-z0-9]{40}$/);
    const reply = await post(`${baseUrl}/api/mcp/v1`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { key: apiKey });
    expect(reply.status).toBe(200);
    expect(reply.json.result.tools.map((t: { name: string }) => t.name)).toContain('blocks.create');
  });
});
