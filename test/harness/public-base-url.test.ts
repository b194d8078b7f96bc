import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../service/reference-server/app.js';
import { runCli } from './run-cli.js';

/**
 * A deployment tested at an internal address whose discovery files name its public origin (the reference
 * with `publicBaseUrl`): discovery-endpoint-correct notes the other origin unless the public one is declared
 * (`--public-base-url`); declared, the files must name the endpoint on it.
 */
const PUBLIC = 'https://canvas.example.test';
let server: ReferenceServer;
beforeAll(async () => {
  server = await startReferenceServer({ publicBaseUrl: PUBLIC });
});
afterAll(() => server.close());

const run = async (extra: string[]) => {
  const r = await runCli(['--base-url', server.baseUrl, '--seed', '1', '--only', 'discovery-endpoint-correct', ...extra], 120_000);
  expect(r.results, r.stderr).toBeDefined();
  const row = r.results!.requirements.find((x) => x.id === 'discovery-endpoint-correct')!;
  return { code: r.code, row, notes: row.checks.flatMap((c) => c.observations ?? []).join(' | '), messages: row.checks.map((c) => c.message ?? '').join(' | ') };
};

it('undeclared: another origin in the files is a note that says how to make it a gate', async () => {
  const { code, row, notes } = await run([]);
  expect(row.status).toBe('pass');
  expect(code).toBe(0);
  expect(notes).toContain(`names the endpoint on ${PUBLIC}`);
  expect(notes).toContain('--public-base-url');
}, 180_000);

it('declared and named by the files (the faithful twin): it passes with no note of another origin', async () => {
  const { code, row, notes } = await run(['--public-base-url', `${PUBLIC}/`]);
  expect(row.status).toBe('pass');
  expect(code).toBe(0);
  expect(notes).not.toContain('names the endpoint on');
}, 180_000);

it('declared and the files name another origin: it fails with the URL that broke it', async () => {
  const { code, row, messages } = await run(['--public-base-url', 'https://canvas.example.com']);
  expect(row.status).toBe('fail');
  expect(code).toBe(1);
  expect(messages).toContain(`${PUBLIC}/api/mcp/v1 (the public base URL is https://canvas.example.com)`);
}, 180_000);

it('the profile\'s "publicBaseUrl" declares it too, and --public-base-url goes over it', async () => {
  const profile = join(mkdtempSync(join(tmpdir(), 'public-base-url-')), 'profile.json');
  writeFileSync(profile, JSON.stringify({ name: 'declared', kind: 'service', derive: true, publicBaseUrl: 'https://canvas.example.com' }));
  const declared = await run(['--profile', profile]);
  expect(declared.row.status).toBe('fail');
  expect(declared.messages).toContain('(the public base URL is https://canvas.example.com)');
  const over = await run(['--profile', profile, '--public-base-url', PUBLIC]);
  expect(over.row.status).toBe('pass');
}, 240_000);

it('a --public-base-url with a path is bad usage', async () => {
  const r = await runCli(['--base-url', server.baseUrl, '--public-base-url', 'https://canvas.example.com/app', '--only', 'discovery-endpoint-correct'], 60_000);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('--public-base-url must be an http(s) origin without a path');
}, 90_000);
