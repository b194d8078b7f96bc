import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTPS_MUTANTS } from '../../service/mutants/index.js';
import type { Mutant } from '../../service/mutants/mutant.js';
import { startReferenceServer, type ReferenceServer } from '../../service/reference-server/app.js';
import { CONFORMANCE_CONFIG } from '../../service/reference-server/conformance-config.js';
import { runConformanceChild, type ChildRun } from '../../scripts/conformance-runs.js';

/**
 * "Transport is HTTPS carrying JSON-RPC 2.0." (service.md): what the service hands out over https. The
 * reference is served over TLS with a certificate made here by openssl; the harness trusts it the way a user
 * trusts a private CA, through NODE_EXTRA_CA_CERTS, and is pointed at it as at any deployment (url target).
 * The faithful reference passes every wire row there; each https mutant fails wire-https-urls for the reason
 * it plants; on plain http the same mutant is only observed.
 */
let dir: string;
let tls: { key: string; cert: string };
let env: Record<string, string>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'https-target-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  tls = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  env = { NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') };
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the harness as a user would against the reference (with `m`'s fault) served over https. */
async function overHttps(args: string[], m?: Mutant): Promise<ChildRun & { baseUrl: string }> {
  const server: ReferenceServer = await startReferenceServer(CONFORMANCE_CONFIG, { tls, ...(m && { middleware: m.middleware }) });
  try {
    expect(server.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const run = await runConformanceChild(['--target', 'url', '--base-url', server.baseUrl, '--seed', '1', ...args], 120_000, mkdtempSync(join(dir, 'r-')), env);
    return { ...run, baseUrl: server.baseUrl };
  } finally {
    await server.close();
  }
}

const checksOf = (run: ChildRun, id: string) => run.results!.requirements.find((r) => r.id === id)!.checks;

describe.concurrent('an https target: URLs the service hands out', () => {
  it('the faithful reference over https passes every wire row, its claimUrl and links all https', async () => {
    const run = await overHttps(['--only', 'wire-']);
    expect(run.results, run.stderr).toBeDefined();
    const bad = run.results!.requirements.filter((r) => r.status !== 'pass').map((r) => `${r.id}: ${r.status} ${r.checks.map((c) => c.message ?? c.reason ?? '').join(' | ')}`);
    expect(bad).toEqual([]);
    const https = checksOf(run, 'wire-https-urls');
    expect(https.map((c) => c.name).sort()).toEqual(['the claimUrl is https when the service is reached over https', 'the discovery files link to the service over https when it is reached over https']);
    for (const c of https) expect(c.observations.join(' '), c.name).toMatch(/URL\(s\) of the service, all https/);
    expect(run.code).toBe(0);
  }, 150_000);

  it.each(HTTPS_MUTANTS.map((m) => [m.name, m] as const))('%s over https: wire-https-urls fails for the planted reason, and nothing else', async (_name, m) => {
    const run = await overHttps(['--only', m.violates.join(',')], m);
    expect(run.results, run.stderr).toBeDefined();
    const reqs = run.results!.requirements;
    for (const id of m.violates) {
      const row = reqs.find((r) => r.id === id)!;
      expect(row.status, JSON.stringify(row.checks.map((c) => [c.name, c.status, c.message]))).toBe('fail');
      expect(row.checks.some((c) => c.status === 'fail' && m.plants.test(c.message ?? ''))).toBe(true);
    }
    expect(reqs.filter((r) => !m.violates.includes(r.id) && (r.status === 'fail' || r.status === 'warn')).map((r) => r.id)).toEqual([]);
    expect(run.code).toBe(1);
  }, 150_000);

  it('on a plain-http target the same fault is only observed: the row passes and says what it saw', async () => {
    const run = await runConformanceChild(['--mutant', 'http-claim-url', '--only', 'wire-https-urls', '--seed', '1'], 120_000, mkdtempSync(join(dir, 'r-')));
    expect(run.results, run.stderr).toBeDefined();
    const checks = checksOf(run, 'wire-https-urls');
    expect(checks.map((c) => c.status)).toEqual(['pass', 'pass']);
    const claim = checks.find((c) => /claimUrl/.test(c.name))!;
    expect(claim.observations.join(' ')).toMatch(/not https: the claimUrl only observed \(1 URL\(s\), 1 of them http:\/\/: claimUrl: http:\/\/127\.0\.0\.1/);
    expect(run.code).toBe(0);
  }, 150_000);
});
