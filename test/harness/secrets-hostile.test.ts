import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_MUTANTS, mutant } from '../../fixtures/mutants/index.js';
import { startReferenceServer, type ReferenceServer } from '../../fixtures/reference-server/app.js';
import { REDACTED, scrubDeep, scrubText, Secrets } from '../../src/kit/scrub.js';
import { runConformanceChild } from '../../src/cli/spawn-conformance.js';
import { conformanceSecrets } from '../../src/reports/index.js';
import { CONFORMANCE_CONFIG } from '../../fixtures/reference-server/conformance-config.js';
import { bootstrap } from '../helpers/reference.js';
import { TSX_IMPORTS } from '../../src/kit/tsx-imports.js';

/*
 * One redaction boundary (issue 13, part 5): everything a run records passes one scrubber before any writer
 * sees it. Hostile services echo the caller's key and every request header value in bodies, headers, error
 * messages, SSE events and a 429 body; no output file and no console line may hold any secret.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HEADER_SECRET = 'hdrSecret-7Qw9zX2kLm4';
const PASSWORD = 'hunter2secretPw9';
const KEY_SHAPE = /_live_[A-Za-z0-9]{16,}/;
/** Rows that reach tools/list, tools/call (plain and streaming), errors and auth: where the echoes land. */
const ROWS = 'jsonrpc-id-echo,jsonrpc-method-not-found,stream-progress-sent,stream-final-result-ok,calls-result-shape,auth-unknown-key-401';

// ---------------------------------------------------------------------------------------------------
// The scrubber

describe('scrubDeep', () => {
  const secrets = Secrets.from({
    values: ['cnv_live_AAAAbbbbCCCCdddd1234', 'session-0123456789'],
    headers: { 'x-api-key': HEADER_SECRET, authorization: 'Basic dXNlcjpwYXNzd29yZDEyMw==', 'mcp-protocol-version': '2025-06-18' },
    urls: ['https://alice:s3cretPassw0rd@api.example.com/v1?api_key=QueryKey123456&page=2'],
  });

  it('scrubs every string in nested objects and arrays, object keys too, and keeps other values', () => {
    const value = {
      message: `key cnv_live_AAAAbbbbCCCCdddd1234 and ${HEADER_SECRET}`,
      nested: [{ note: 'session session-0123456789' }, 42, true, null],
      [`by ${HEADER_SECRET}`]: 'x',
      revision: '2025-06-18',
    };
    const out = scrubDeep(value, secrets);
    expect(out).toEqual({
      message: `key ${REDACTED} and ${REDACTED}`, // a known key goes whole
      nested: [{ note: `session ${REDACTED}` }, 42, true, null],
      [`by ${REDACTED}`]: 'x',
      // Protocol vocabulary in a header is not a secret: revision names stay readable.
      revision: '2025-06-18',
    });
    expect(value.message).toContain(HEADER_SECRET); // a copy: the input is untouched
  });

  it('scrubs URL userinfo and credential query values, known or not', () => {
    expect(scrubText('GET https://alice:s3cretPassw0rd@api.example.com/v1?api_key=QueryKey123456&page=2', secrets))
      .toBe(`GET https://${REDACTED}@api.example.com/v1?api_key=${REDACTED}&page=2`);
    // Nobody listed these: the patterns alone catch them.
    expect(scrubText('see http://bob:pw@h.example/x?token=abc&Signature=zz9&X-Amz-Credential=AKIA1&monkey=1&key=k'))
      .toBe(`see http://${REDACTED}@h.example/x?token=${REDACTED}&Signature=${REDACTED}&X-Amz-Credential=${REDACTED}&monkey=1&key=${REDACTED}`);
    // The secrets stand alone too (an echoed password, a query value in a message).
    expect(scrubText('password s3cretPassw0rd, key QueryKey123456', secrets)).toBe(`password ${REDACTED}, key ${REDACTED}`);
  });

  it('scrubs key shapes, Bearer credentials, Basic credentials, a key\'s secret part and escaped spellings', () => {
    expect(scrubText(`Bearer abc123def456ghi and "Bearer token" and Bearer <API_KEY> and Bearer [REDACTED 40 chars]`))
      .toBe(`Bearer ${REDACTED} and "Bearer token" and Bearer <API_KEY> and Bearer [REDACTED 40 chars]`);
    expect(scrubText('x_live_0123456789abcdefXYZ')).toBe(`x_live_${REDACTED}`);
    expect(scrubText('bare AAAAbbbbCCCCdddd1234 and password123 and dXNlcjpwYXNzd29yZDEyMw==', secrets)).toBe(`bare ${REDACTED} and ${REDACTED} and ${REDACTED}`);
    const quoted = Secrets.from({ headers: { 'x-token': 'a"b\\c-long-secret' } });
    expect(scrubText(JSON.stringify({ echo: 'a"b\\c-long-secret' }), quoted)).toBe(`{"echo":"${REDACTED}"}`);
  });

  it('a conformance run\'s secrets: keys, tokens, session, header values, URL credentials of options and target', () => {
    const s = conformanceSecrets(
      { headers: { 'x-api-key': HEADER_SECRET }, apiKey: 'cnv_live_given0000000000000', baseUrl: `http://u:${PASSWORD}@127.0.0.1:1` },
      {
        kind: 'url', baseUrl: 'http://127.0.0.1:1', mcpUrl: 'http://127.0.0.1:1/api/mcp/v1', headers: {}, canBootstrap: false, profile: {} as never,
        protocol: 'auto', revisions: [], timeoutMs: 1, seed: 1, property: {} as never,
        revokedKey: 'revoked-key-000000', admin: { url: 'http://127.0.0.1:2', token: 'admin-token-000000' }, sessionId: 'sess-000000000',
      },
    );
    const text = `${HEADER_SECRET} ${PASSWORD} revoked-key-000000 admin-token-000000 sess-000000000 given0000000000000`;
    expect(s.scrub(text)).toBe(Array(6).fill(REDACTED).join(' '));
  });
});

// ---------------------------------------------------------------------------------------------------
// Hostile services, whole runs

interface Outputs { files: Record<string, string>; console: string }

function outputs(dir: string, stdout: string, stderr: string): Outputs {
  const files = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
  return { files, console: `${stdout}\n${stderr}` };
}

/** Every output (each file, the console) holds none of `secrets` and nothing key-shaped. */
function expectNoSecret(o: Outputs, secrets: string[]): void {
  for (const [name, text] of [...Object.entries(o.files), ['console', o.console] as const]) {
    for (const s of secrets) expect(text.includes(s), `${name} holds the secret ${s.slice(0, 4)}…`).toBe(false);
    expect(text, name).not.toMatch(KEY_SHAPE);
  }
}

/** `node <TSX_IMPORTS> <script> <args>` (no shell: nothing re-quoted), as the package scripts run. */
function runNode(script: string, args: string[], timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...TSX_IMPORTS, script, ...args], { cwd: ROOT, env: { ...process.env, MCP_API_KEY: '' }, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
  });
}

/** Every secret a run holds, and each key's part after `_live_` alone. */
const secretsOf = (keys: string[]) => [HEADER_SECRET, PASSWORD, ...keys, ...keys.map((k) => k.split('_live_')[1]!)];

/** Evidence that the service's echo reached the records (scrubbed): without it the test proves nothing. */
const ECHOED: Record<string, RegExp> = {
  'hostile-echo-body': /internal error for key \[REDACTED\]: Authorization Bearer \[REDACTED\]/,
  'hostile-echo-headers': /"x-echo-key": "\[REDACTED\]"/,
  'hostile-echo-sse': /working for \[REDACTED\]; caller headers .*x-api-key=\[REDACTED\]/,
};

describe('hostile services leave no secret in any report or console line', () => {
  const servers = new Map<string, { server: ReferenceServer; keys: string[] }>();

  beforeAll(async () => {
    for (const m of HOSTILE_MUTANTS) {
      const server = await startReferenceServer({ ...CONFORMANCE_CONFIG }, { middleware: m.middleware });
      const keys = [(await bootstrap(server)).apiKey, (await bootstrap(server)).apiKey];
      servers.set(m.name, { server, keys });
    }
  });
  afterAll(async () => {
    for (const { server } of servers.values()) await server.close();
  });

  const withUserinfo = (url: string) => url.replace('http://', `http://probe-user:${PASSWORD}@`);

  it('the hostile services are registered for --mutant, outside the mutation score', () => {
    expect(HOSTILE_MUTANTS.map((m) => m.name)).toEqual(Object.keys(ECHOED));
    for (const m of HOSTILE_MUTANTS) expect(mutant(m.name)).toBe(m);
  });

  for (const name of Object.keys(ECHOED)) {
    it(`conformance against ${name} (url target: known keys, --header, a base URL with userinfo)`, async () => {
      const { server, keys } = servers.get(name)!;
      const run = await runConformanceChild([
        '--target', 'url', '--base-url', withUserinfo(server.baseUrl), '--profile', 'reference', '--api-key', keys[0]!, '--other-key', keys[1]!,
        '--header', `X-Api-Key: ${HEADER_SECRET}`, '--bootstrap-budget', '0', '--only', ROWS, '--seed', '1',
      ], 120_000);
      expect(run.results, run.stderr).toBeDefined();
      // The body and header echoes break checks (failure messages, expected/actual, replays recorded); the SSE one may conform.
      expect(name === 'hostile-echo-sse' ? [0, 1] : [1], run.stderr).toContain(run.code);
      const o = outputs(run.reportDir, run.stdout, run.stderr);
      expect(Object.keys(o.files).sort()).toEqual(['junit.xml', 'report.html', 'results.json', 'summary.md']);
      expectNoSecret(o, secretsOf(keys));
      expect(o.files['results.json']).toMatch(ECHOED[name]!);
      for (const f of ['junit.xml', 'summary.md', 'report.html']) expect(o.files[f], f).toContain(REDACTED);
      // The replay commands keep the base URL, not its password.
      expect(o.files['results.json']).toContain(`--base-url http://${REDACTED}@127.0.0.1:`);
    }, 150_000);
  }

  it('conformance against hostile-echo-sse on the embedded target (--mutant, bootstrapped keys)', async () => {
    const run = await runConformanceChild(['--mutant', 'hostile-echo-sse', '--header', `X-Api-Key: ${HEADER_SECRET}`, '--only', ROWS, '--seed', '1'], 120_000);
    expect(run.results, run.stderr).toBeDefined();
    const o = outputs(run.reportDir, run.stdout, run.stderr);
    // The embedded target's keys are bootstrapped inside the run: they are caught by their shape.
    expectNoSecret(o, [HEADER_SECRET]);
    expect(o.files['results.json']).toMatch(ECHOED['hostile-echo-sse']!);
  }, 150_000);

  it('a load run and a probe run against a hostile service (key given, base URL with userinfo), bounded', async () => {
    const { server, keys } = servers.get('hostile-echo-body')!;
    const loadDir = mkdtempSync(join(tmpdir(), 'hostile-load-'));
    const load = await runNode('load/cli/load.ts', ['--target', 'url', '--base-url', withUserinfo(server.baseUrl), '--api-key', keys[0]!,
      '--scenario', 'tools-list,mix', '--duration', '1', '--connections', '2', '--max-requests', '200', '--report-dir', loadDir], 60_000);
    expect([0, 1], load.stderr).toContain(load.code);
    const lo = outputs(loadDir, load.stdout, load.stderr);
    expect(Object.keys(lo.files).sort()).toEqual(['load-junit.xml', 'load.html', 'load.json', 'load.md']);
    expectNoSecret(lo, secretsOf([keys[0]!]));
    expect(lo.files['load.json']).toContain(`url http://${REDACTED}@127.0.0.1:`);
    expect(lo.console).toContain(`target: http://${REDACTED}@127.0.0.1:`);

    const probeDir = mkdtempSync(join(tmpdir(), 'hostile-probe-'));
    const probe = await runNode('load/cli/probe-rate-limit.ts', ['--target', 'url', '--base-url', withUserinfo(server.baseUrl), '--api-key', keys[0]!,
      '--max-time', '5', '--max-requests', '300', '--max-rate', '40', '--start-rate', '10', '--step-time', '0.5', '--report-dir', probeDir], 60_000);
    expect([0, 1], probe.stderr).toContain(probe.code);
    const po = outputs(probeDir, probe.stdout, probe.stderr);
    expect(Object.keys(po.files).sort()).toEqual(['probe-junit.xml', 'probe.html', 'probe.json', 'probe.md']);
    expectNoSecret(po, secretsOf([keys[0]!]));
    expect(po.files['probe.json']).toContain(`http://${REDACTED}@127.0.0.1:`);
  }, 150_000);
});
