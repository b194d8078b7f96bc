import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { STDIO_BROKEN_PROXY, STDIO_FAULTS } from '../../service/mutants/stdio.js';
import { variant } from '../../fixtures/variants/index.js';
import { CATALOG } from '../../src/catalog/index.js';
import { ConformanceRuns, runConformanceChild } from '../../scripts/conformance-runs.js';
import { program } from '../../src/kit/package-root.js';
import type { Results } from '../../src/engine/results.js';
import { splitCommandLine, stdoutFrames } from '../../src/targets/stdio.js';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';
import { genericRows } from '../../src/engine/check.js';
import { CHECKS } from '../../suites/index.js';

/** The rows the generic profile judges, read off the checks. */
const GENERIC_ROWS = genericRows(CHECKS);

/** The conformance command in a child process, with extra environment; exit code, output and results.json. */
function conformance(args: string[], { env = {}, timeoutMs = 180_000 }: { env?: Record<string, string>; timeoutMs?: number } = {}) {
  return runConformanceChild(['--seed', '3', ...args], timeoutMs, mkdtempSync(join(tmpdir(), 'conformance-targets-')), env);
}

/**
 * The runs whose outcome is their results (not the command's own output) go through a pool of processes
 * that run command line after command line: no node, tsx and module graph to pay for each.
 */
const pool = new ConformanceRuns(2);
function pooled(args: string[]) {
  return pool.run(['--seed', '3', ...args], 240_000, mkdtempSync(join(tmpdir(), 'conformance-targets-')));
}

const statusOf = (results: Results | undefined) => Object.fromEntries((results?.requirements ?? []).map((r) => [r.id, r.status]));
// No results at all is a failure too, so the assertion prints the command's stderr.
const failures = (results: Results | undefined) => !results ? ['no results.json was written'] : results.requirements.filter((r) => r.status === 'fail' || r.status === 'warn')
  .map((r) => `${r.id}: ${r.checks.map((c) => c.message).filter(Boolean).join(' | ')}`);
const GENERIC = CATALOG.filter((r) => GENERIC_ROWS.has(r.id)).map((r) => r.id).sort();
const STDIO = CATALOG.filter((r) => r.group === 'stdio').map((r) => r.id);

/** A plain MCP server with one tool: the SDK's stateless handler on node:http, nothing of the service. */
async function startPlainMcpServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'plain-mcp-server', version: '1.0.0' });
    server.registerTool('echo', { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    return server;
  });
  const http: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const response = await handler.fetch(new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method, headers, ...(hasBody && { body: Buffer.concat(chunks) }) }));
    res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await handler.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

describe('command-line parts of the targets', () => {
  it('splits --stdio-command like a shell splits words, without expanding anything', () => {
    expect(splitCommandLine('node --import tsx proxy.ts')).toEqual(['node', '--import', 'tsx', 'proxy.ts']);
    expect(splitCommandLine(`  a 'b c' "d \\"e\\"" f\\ g '' $HOME`)).toEqual(['a', 'b c', 'd "e"', 'f g', '', '$HOME']);
    expect(() => splitCommandLine("node 'unterminated")).toThrow(/unterminated/);
  });

  it('cuts stdout into frames: one-line messages, pretty-printed values, blank lines and other text', () => {
    const lines = ['{"jsonrpc":"2.0","id":1,"result":{}}', 'proxy ready', '', '{', '  "a": "}{ \\" [",', '  "b": [1, 2]', '}', '"metric"', '{ "open": '];
    expect(stdoutFrames(lines).map((f) => [f.kind, f.first, f.lines])).toEqual([
      ['message', 0, 1], ['garbage', 1, 1], ['blank', 2, 1], ['multiline', 3, 4], ['message', 7, 1], ['garbage', 8, 1],
    ]);
    expect(stdoutFrames(lines)[3]!.value).toEqual({ a: '}{ " [', b: [1, 2] });
  });
});

// Through the pool, which answers an error with what the command prints on stderr: cli.test.ts starts the
// command itself for its bad input, and the container case below needs an environment of its own.
describe.concurrent('targets and bad input', { timeout: 90_000 }, () => {
  it('--target url with nothing listening exits 2 and says it cannot reach the endpoint', async () => {
    const run = await pooled(['--target', 'url', '--base-url', 'http://127.0.0.1:1']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/error: cannot reach http:\/\/127\.0\.0\.1:1\/api\/mcp\/v1/);
    // No verdict, and the folder says so (issue 36).
    expect(run.results).toMatchObject({ exitCode: 2, requirements: [], verdict: expect.stringMatching(/^no verdict: cannot reach /) });
  });

  it.each([
    [['--no-such-option'], /no-such-option/],
    [['--only', 'nonexistent'], /selects no requirement/],
    [['--stdio-command', 'node x.ts'], /--stdio-command needs --target stdio/],
    [['--target', 'stdio', '--stdio-command', "node 'x.ts"], /unterminated/],
    [['--target', 'stdio', '--stdio-command', '/nonexistent/proxy --flag'], /not an executable file/],
    [['--target', 'stdio', '--mcp-url', 'http://127.0.0.1:1/mcp'], /not --mcp-url/],
    [['--target', 'container', '--base-url', 'http://127.0.0.1:1'], /runs its own server/],
  ])('%j exits 2 with a clear message', async (args, message) => {
    const run = await pooled(args);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('--target container without a container engine exits 2 with the setup hint', async () => {
    const run = await conformance(['--target', 'container', '--only', 'version'], { env: { DOCKER_HOST: 'unix:///tmp/no-such-engine.sock' }, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/no container engine answers on unix:\/\/\/tmp\/no-such-engine\.sock.*scripts\/setup-containers\.sh/);
  });
});

describe.concurrent('the stdio target', { timeout: 240_000 }, () => {
  // The broken proxy bundled, as the run bundles the repository's own (src/interop/bundle.ts): tsx would cost
  // a second of CPU in each of the dozen sessions a run starts.
  let broken: string;
  beforeAll(async () => {
    broken = `node ${program(STDIO_BROKEN_PROXY)}`;
  });

  it('--target stdio --only stdio: the repository\'s proxy passes every stdio requirement', async () => {
    const run = await pooled(['--target', 'stdio', '--only', 'stdio']);
    expect(run.results, run.stderr).toBeDefined();
    expect(failures(run.results), run.stderr).toEqual([]);
    expect(run.results!.target.kind).toBe('stdio');
    expect(statusOf(run.results)).toEqual(Object.fromEntries(STDIO.map((id) => [id, 'pass'])));
    expect(run.code).toBe(0);
  });

  it('the faithful variant of the broken proxy passes too (the faults below are the only difference)', async () => {
    const run = await pooled(['--target', 'stdio', '--only', 'stdio', '--stdio-command', broken]);
    expect(failures(run.results), run.stderr).toEqual([]);
    expect(statusOf(run.results)).toEqual(Object.fromEntries(STDIO.map((id) => [id, 'pass'])));
    expect(run.code).toBe(0);
  });

  // A server that pages tools/list: the proxy's pages are followed and compared with HTTP's, page for page.
  it('behind a server that pages its tool list, the repository\'s proxy passes every stdio requirement, all pages read', async () => {
    const server = await variant('three-valid-pages').start();
    try {
      const run = await pooled(['--target', 'stdio', '--base-url', server.baseUrl, '--only', 'stdio']);
      expect(failures(run.results), run.stderr).toEqual([]);
      expect(statusOf(run.results)).toEqual(Object.fromEntries(STDIO.map((id) => [id, 'pass'])));
      const forwarded = run.results!.requirements.find((r) => r.id === 'stdio-forwards-results')!.checks[0]!;
      expect(forwarded.observations.join('\n')).toMatch(/tools in 3 page\(s\), identical over stdio and HTTP/);
    } finally {
      await server.close();
    }
  });

  // The stdio requirements are proven failable here: --mutant wraps the HTTP server only.
  it.each(STDIO_FAULTS.map((f) => [f.fault, f] as const))('a proxy with the fault "%s" is caught', async (_name, f) => {
    // A fault about pages shows only behind a server that has more than one.
    const server = 'behind' in f ? await variant(f.behind).start() : undefined;
    const run = await pooled(['--target', 'stdio', ...(server ? ['--base-url', server.baseUrl] : []), '--only', f.violates, '--stdio-command', `${broken} --fault ${f.fault}`])
      .finally(() => server?.close());
    expect(run.results, run.stderr).toBeDefined();
    const level = CATALOG.find((r) => r.id === f.violates)!.level;
    expect(statusOf(run.results)[f.violates], `${f.fault} (${f.description})`).toBe(level === 'MUST' ? 'fail' : 'warn');
    expect(run.code).toBe(level === 'MUST' ? 1 : 0);
    // Evidence: the failing check carries the conversation, with the key redacted.
    const checks = run.results!.requirements.find((r) => r.id === f.violates)!.checks;
    expect(checks.some((c) => c.observations.some((o) => o.startsWith('stdio transcript')))).toBe(true);
    expect(JSON.stringify(run.results)).not.toMatch(/_live_[A-Za-z0-9]{16,}/);
  });
});

describe.concurrent('the generic profile (--mcp-url)', { timeout: 240_000 }, () => {
  let plain: { url: string; close: () => Promise<void> };
  let reference: ReferenceServer;
  let key: string;
  beforeAll(async () => {
    [plain, reference] = await Promise.all([startPlainMcpServer(), startReference({ bootstrapPlan: 'unlimited' })]);
    ({ apiKey: key } = await bootstrap(reference));
  });
  afterAll(async () => {
    await Promise.all([plain?.close(), reference?.close()]);
  });

  it('runs against a plain MCP server: the SDK client interop checks pass and only generic requirements are reported', async () => {
    const run = await pooled(['--mcp-url', plain.url, '--only', 'interop']);
    expect(failures(run.results), run.stderr).toEqual([]);
    const ids = run.results!.requirements.map((r) => r.id);
    expect(ids.sort()).toEqual(GENERIC.filter((id) => id.startsWith('interop')));
    expect(ids.every((id) => statusOf(run.results)[id] === 'pass')).toBe(true);
    expect(run.results!.profile).toBe('generic');
    expect(run.code).toBe(0);
  });

  it('the whole generic subset against a plain MCP server reports exactly the generic requirements', async () => {
    const run = await pooled(['--mcp-url', plain.url]);
    expect(run.results, run.stderr).toBeDefined();
    expect(run.results!.requirements.map((r) => r.id).sort()).toEqual(GENERIC);
    expect([0, 1]).toContain(run.code);
  });

  it('runs the whole generic subset against the reference endpoint with --header: exit 0', async () => {
    const run = await pooled(['--mcp-url', reference.mcpUrl, '--header', `Authorization: Bearer ${key}`]);
    expect(failures(run.results), run.stderr).toEqual([]);
    expect(run.results!.requirements.map((r) => r.id).sort()).toEqual(GENERIC);
    expect(JSON.stringify(run.results)).not.toContain(key);
    expect(run.code).toBe(0);
  });
});

describe('the container target', () => {
  // Builds the repository's Dockerfile and runs it (~30 s with a warm layer cache; longer on a cold one).
  it('--target container --only version exits 0', async () => {
    const run = await conformance(['--target', 'container', '--only', 'version'], { timeoutMs: 600_000 });
    expect(failures(run.results), run.stderr).toEqual([]);
    expect(run.results!.target.kind).toBe('container');
    expect(run.results!.target.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(run.results!.requirements.every((r) => r.status === 'pass')).toBe(true);
    expect(run.code).toBe(0);
  }, 600_000);
});
