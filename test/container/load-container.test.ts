import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { program } from '../../src/kit/package-root.js';

// `npm run load -- --target container`: testcontainers builds the repository's Dockerfile, runs it over
// podman's Docker-compatible socket (DOCKER_HOST; the global setup starts it), and the load runs against
// the server in the container on 127.0.0.1. Fails, never skips, without a container engine.

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'load-container-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('load against the container target', () => {
  it('builds the image, runs it and loads a stateless and a streaming scenario with zero errors', async () => {
    const { stdout, stderr } = await run(process.execPath, [program('src/cli/load.ts'), '--target', 'container',
      '--scenario', 'tools-list,schedule-preview', '--duration', '2', '--connections', '4', '--threshold', 'errors==0', '--report-dir', dir, '--quiet'],
    { cwd: ROOT, timeout: 600_000, maxBuffer: 16 * 1024 * 1024 });
    // The target is announced before any traffic.
    expect(stderr).toMatch(/target: reference server in a container at http:\/\/127\.0\.0\.1:\d+/);
    const report = JSON.parse(readFileSync(join(dir, 'load.json'), 'utf8')) as {
      target: { kind: string; baseUrl: string };
      scenarios: { name: string; requests: number; errors: number; streaming?: { responses: number } }[];
    };
    expect(report.target.kind).toBe('container');
    expect(report.target.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(report.scenarios.map((s) => s.name)).toEqual(['tools-list', 'schedule-preview']);
    for (const s of report.scenarios) {
      expect(s.errors, s.name).toBe(0);
      expect(s.requests, s.name).toBeGreaterThan(0);
    }
    expect(report.scenarios[1]!.streaming?.responses).toBeGreaterThan(0);
    expect(stdout).toMatch(/tools-list/);
  }, 600_000);
});
