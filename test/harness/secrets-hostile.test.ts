import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_MUTANTS, mutant } from '../../service/mutants/index.js';
import { startReferenceServer, type Middleware, type ReferenceServer } from '../../service/reference-server/app.js';
import { REDACTED, scrubDeep, scrubText, Secrets } from '../../src/kit/scrub.js';
import { runConformanceChild } from '../../scripts/conformance-runs.js';
import { conformanceSecrets } from '../../src/reports/index.js';
import { CONFORMANCE_CONFIG } from '../../service/reference-server/conformance-config.js';
import { bootstrap } from '../helpers/reference.js';
import { program } from '../../src/kit/package-root.js';
import { rewriteResponse, tryParse } from '../../service/mutants/intercept.js';
import { keyLeaks } from '../helpers/key-leaks.js';

/*
 * One redaction boundary (issue 13, part 5; issue 24, part 4): everything a run records passes one scrubber
 * before any writer sees it. Hostile services echo the caller's key and every request header value in bodies,
 * headers, error messages, SSE events and a 429 body; no output file and no console line may hold any secret,
 * in any spelling (test/helpers/key-leaks.ts): not the keys given, not the keys the harness bootstrapped inside
 * its checks (the servers here keep every key they hand out), not a header value of three characters.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HEADER_SECRET = 'hdrSecret-7Qw9zX2kLm4';
/** A header value of three characters: redacted by exact value, whatever its length (it holds `!`, so no random id holds it by chance). */
const SHORT_HEADER = 'k!9';
const PASSWORD = 'hunter2secretPw9';
const KEY_SHAPE = /_live_[A-Za-z0-9]{16,}/;
/**
 * Rows that reach tools/list, tools/call (plain and streaming), errors and auth: where the echoes land; a
 * bootstrap inside a check (its key is the harness's to redact); and the row that fails a reply carrying a key.
 */
const ROWS = 'jsonrpc-id-echo,jsonrpc-method-not-found,stream-progress-sent,stream-final-result-ok,calls-result-shape,auth-unknown-key-401,bootstrap-key-works,auth-key-never-echoed';

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
    const out = unalias(scrubDeep(value, secrets));
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
    expect(unalias(scrubText('GET https://alice:s3cretPassw0rd@api.example.com/v1?api_key=QueryKey123456&page=2', secrets)))
      .toBe(`GET https://${REDACTED}@api.example.com/v1?api_key=${REDACTED}&page=2`);
    // Nobody listed these: the patterns alone catch them.
    expect(unalias(scrubText('see http://bob:pw@h.example/x?token=abc&Signature=zz9&X-Amz-Credential=AKIA1&monkey=1&key=k')))
      .toBe(`see http://${REDACTED}@h.example/x?token=${REDACTED}&Signature=${REDACTED}&X-Amz-Credential=${REDACTED}&monkey=1&key=${REDACTED}`);
    // The secrets stand alone too (an echoed password, a query value in a message).
    expect(unalias(scrubText('password s3cretPassw0rd, key QueryKey123456', secrets))).toBe(`password ${REDACTED}, key ${REDACTED}`);
  });

  it('scrubs key shapes, Bearer credentials, Basic credentials, a key\'s secret part and escaped spellings', () => {
    expect(unalias(scrubText(`Bearer abc123def456ghi and "Bearer token" and Bearer <API_KEY> and Bearer [REDACTED 40 chars]`)))
      .toBe(`Bearer ${REDACTED} and "Bearer token" and Bearer <API_KEY> and Bearer [REDACTED 40 chars]`);
    expect(unalias(scrubText('x_live_0123456789abcdefXYZ'))).toBe(`x_live_${REDACTED}`);
    expect(unalias(scrubText('bare AAAAbbbbCCCCdddd1234 and password123 and dXNlcjpwYXNzd29yZDEyMw==', secrets))).toBe(`bare ${REDACTED} and ${REDACTED} and ${REDACTED}`);
    const quoted = Secrets.from({ headers: { 'x-token': 'a"b\\c-long-secret' } });
    expect(unalias(scrubText(JSON.stringify({ echo: 'a"b\\c-long-secret' }), quoted))).toBe(`{"echo":"${REDACTED}"}`);
  });

  it('a conformance run\'s secrets: keys, tokens, session, header values, URL credentials of options and target', () => {
    const s = conformanceSecrets(
      { headers: { 'x-api-key': HEADER_SECRET }, apiKey: 'cnv_live_given0000000000000', baseUrl: `http://u:${PASSWORD}@127.0.0.1:1` },
      {
        kind: 'url', baseUrl: 'http://127.0.0.1:1', mcpUrl: 'http://127.0.0.1:1/api/mcp/v1', headers: {}, canBootstrap: false, profile: {} as never,
        revisions: [],
        revokedKey: 'revoked-key-000000', admin: { url: 'http://127.0.0.1:2', token: 'admin-token-000000' }, sessionId: 'sess-000000000',
      },
    );
    const text = `${HEADER_SECRET} ${PASSWORD} revoked-key-000000 admin-token-000000 sess-000000000 given0000000000000`;
    expect(unalias(s.scrub(text))).toBe(Array(6).fill(REDACTED).join(' '));
  });
});

// ---------------------------------------------------------------------------------------------------
// Hostile services, whole runs

interface Outputs { files: Record<string, string>; console: string }

function outputs(dir: string, stdout: string, stderr: string): Outputs {
  const files = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
  // Each file is judged as written (expectNoSecret) and read with its aliases as the marker (unaliased).
  return { files, console: `${stdout}\n${stderr}` };
}

/** A known secret's alias for the run (`<key#1>`, `<secret#2>`, HTML-escaped too), read as the redaction marker it is. */
const ALIAS = /<(?:key|secret)#\d+>|&lt;(?:key|secret)#\d+&gt;/g;
function unalias<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replace(ALIAS, REDACTED)) as T;
}
function unaliased(o: Outputs): Outputs {
  return { files: Object.fromEntries(Object.entries(o.files).map(([f, t]) => [f, t.replace(ALIAS, REDACTED)])), console: o.console.replace(ALIAS, REDACTED) };
}

/**
 * Every output (each file, the console) holds no spelling of any of `secrets` (whole, secret part, JSON,
 * percent-encoded, base64, base64url, in any case), not the short header value, and nothing key-shaped.
 */
function expectNoSecret(o: Outputs, secrets: string[]): void {
  for (const [name, text] of [...Object.entries(o.files), ['console', o.console] as const]) {
    expect(keyLeaks(text, secrets), `${name} holds secrets (numbered as given)`).toEqual([]);
    expect(text.includes(SHORT_HEADER), `${name} holds the short header value`).toBe(false);
    expect(text, name).not.toMatch(KEY_SHAPE);
  }
}

/** A server that keeps every key it hands out from bootstrap (the store holds only hashes), then acts as `inner`. */
function keeping(minted: string[], inner: Middleware): Middleware {
  return (service, next) => {
    const handler = inner(service, next);
    return async (req, res) => {
      if ((req.url ?? '').split('?', 1)[0] === '/api/agent/bootstrap') {
        rewriteResponse(res, (r) => {
          const key = tryParse(Buffer.from(r.body))?.apiKey;
          if (typeof key === 'string') minted.push(key);
        });
      }
      return handler(req, res);
    };
  };
}

/** `node <the compiled script> <args>` (no shell: nothing re-quoted), as the package scripts run. */
function runNode(script: string, args: string[], timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [program(script), ...args], { cwd: ROOT, env: { ...process.env, MCP_API_KEY: '' }, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
  });
}

/** Every secret a run holds (keys' spellings and parts are keyLeaks' to derive). */
const secretsOf = (keys: string[]) => [HEADER_SECRET, PASSWORD, ...keys];

/** Evidence that the service's echo reached the records (scrubbed): without it the test proves nothing. */
const ECHOED: Record<string, RegExp> = {
  'hostile-echo-body': /internal error for key \[REDACTED\]: Authorization Bearer \[REDACTED\].*; key forms \[REDACTED\] \S*\[REDACTED\]\S* \S*\[REDACTED\]\S* \[REDACTED\]/,
  'hostile-echo-headers': /"x-echo-key": "\[REDACTED\]"/,
  'hostile-echo-sse': /working for \[REDACTED\]; caller headers .*x-api-key=\[REDACTED\]/,
};

/** The echo of the short header value, redacted (every hostile service echoes every request header value). */
const SHORT_ECHOED = /x-short=\[REDACTED\]/;

describe('hostile services leave no secret in any report or console line', () => {
  /** `keys`: every key the server handed out, the two given to the harness first, then those it bootstraps itself. */
  const servers = new Map<string, { server: ReferenceServer; keys: string[] }>();

  beforeAll(async () => {
    for (const m of HOSTILE_MUTANTS) {
      const keys: string[] = [];
      const server = await startReferenceServer({ ...CONFORMANCE_CONFIG }, { middleware: keeping(keys, m.middleware) });
      await bootstrap(server);
      await bootstrap(server);
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
        '--header', `X-Api-Key: ${HEADER_SECRET}`, '--header', `X-Short: ${SHORT_HEADER}`, '--bootstrap-budget', '4', '--only', ROWS, '--seed', '1',
      ], 120_000);
      expect(run.results, run.stderr).toBeDefined();
      // Each echoes the caller's key: auth-key-never-echoed fails, and the run with it.
      expect(run.code, run.stderr).toBe(1);
      expect(run.results!.requirements.find((r) => r.id === 'auth-key-never-echoed')?.status).toBe('fail');
      const written = outputs(run.reportDir, run.stdout, run.stderr);
      const o = unaliased(written);
      expect(Object.keys(o.files).sort()).toEqual(['junit.xml', 'report.html', 'results.json', 'summary.md']);
      // The harness bootstrapped keys of its own inside its checks: the server kept them.
      expect(keys.length, 'keys the harness bootstrapped').toBeGreaterThan(2);
      expectNoSecret(written, secretsOf(keys));
      // The key the service echoed is shown as its alias for the run, the same alias wherever it stands.
      expect(written.files['results.json']).toMatch(/<key#\d+>/);
      expect(o.files['results.json']).toMatch(ECHOED[name]!);
      expect(o.files['results.json']).toMatch(SHORT_ECHOED);
      for (const f of ['junit.xml', 'summary.md', 'report.html']) expect(o.files[f], f).toContain(REDACTED);
      // The replay commands keep the base URL, not its password.
      expect(o.files['results.json']).toContain(`--base-url http://${REDACTED}@127.0.0.1:`);
    }, 150_000);
  }

  it('conformance against hostile-echo-sse on the embedded target (--mutant, bootstrapped keys)', async () => {
    const run = await runConformanceChild(['--mutant', 'hostile-echo-sse', '--header', `X-Api-Key: ${HEADER_SECRET}`, '--header', `X-Short: ${SHORT_HEADER}`, '--only', ROWS, '--seed', '1'], 120_000);
    expect(run.results, run.stderr).toBeDefined();
    // A hostile service gets a verdict like any broken one: exit 2 is for the harness's own errors.
    expect(run.code, run.stderr).toBe(1);
    const written = outputs(run.reportDir, run.stdout, run.stderr);
    const o = unaliased(written);
    // The embedded server runs in the child: its keys are out of reach here, and are caught by their shape.
    expectNoSecret(written, [HEADER_SECRET]);
    expect(o.files['results.json']).toMatch(ECHOED['hostile-echo-sse']!);
    expect(o.files['results.json']).toMatch(SHORT_ECHOED);
  }, 150_000);

  it('a load run and a probe run against a hostile service (key given, base URL with userinfo), bounded', async () => {
    const { server, keys } = servers.get('hostile-echo-body')!;
    const loadDir = mkdtempSync(join(tmpdir(), 'hostile-load-'));
    const load = await runNode('src/cli/load.ts', ['--target', 'url', '--base-url', withUserinfo(server.baseUrl), '--api-key', keys[0]!,
      '--scenario', 'tools-list,mix', '--duration', '1', '--connections', '2', '--max-requests', '200', '--report-dir', loadDir], 60_000);
    expect([0, 1], load.stderr).toContain(load.code);
    const lo = unaliased(outputs(loadDir, load.stdout, load.stderr));
    expect(Object.keys(lo.files).sort()).toEqual(['load-junit.xml', 'load.html', 'load.json', 'load.md']);
    expectNoSecret(lo, secretsOf(keys));
    expect(lo.files['load.json']).toContain(`url http://${REDACTED}@127.0.0.1:`);
    expect(lo.console).toContain(`target: http://${REDACTED}@127.0.0.1:`);

    const probeDir = mkdtempSync(join(tmpdir(), 'hostile-probe-'));
    const probe = await runNode('src/cli/probe-rate-limit.ts', ['--target', 'url', '--base-url', withUserinfo(server.baseUrl), '--api-key', keys[0]!,
      '--max-time', '5', '--max-requests', '300', '--max-rate', '40', '--start-rate', '10', '--step-time', '0.5', '--report-dir', probeDir], 60_000);
    expect([0, 1], probe.stderr).toContain(probe.code);
    const po = unaliased(outputs(probeDir, probe.stdout, probe.stderr));
    expect(Object.keys(po.files).sort()).toEqual(['probe-junit.xml', 'probe.html', 'probe.json', 'probe.md']);
    expectNoSecret(po, secretsOf(keys));
    expect(po.files['probe.json']).toContain(`http://${REDACTED}@127.0.0.1:`);
  }, 150_000);
});
