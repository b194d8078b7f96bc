import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';
import { call, finalMessage, post } from '../helpers/mcp-http.js';

const FILES = {
  '/agent.md': 'text/markdown; charset=utf-8',
  '/llms.txt': 'text/plain; charset=utf-8',
  '/llms-full.txt': 'text/plain; charset=utf-8',
} as const;
type Path = keyof typeof FILES;
const PATHS = Object.keys(FILES) as Path[];
const BOOTSTRAP_FIELDS = ['humanEmail', 'agentName', 'workspaceName', 'canvasName'];
/** The Events table of the service description. */
const STREAMING_TOOLS = ['blocks.create', 'blocks.build', 'dataSources.testConnection', 'dataSources.triggerRefresh', 'schedule.preview'];

interface Tool { name: string; inputSchema: Record<string, unknown> }

interface Site {
  server: ReferenceServer;
  /** What the files should call the service: the configured public base URL. */
  base: string;
  prefix: string;
  files: Record<Path, string>;
  tools: Tool[];
  key: string;
}

async function load(overrides: Parameters<typeof startReference>[0] = {}): Promise<Site> {
  const server = await startReference(overrides);
  const files = {} as Record<Path, string>;
  for (const path of PATHS) {
    const res = await fetch(server.baseUrl + path);
    expect(res.status, path).toBe(200);
    files[path] = new TextDecoder('utf-8', { fatal: true }).decode(await res.arrayBuffer());
  }
  const { apiKey } = await bootstrap(server);
  const list = await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { key: apiKey });
  expect(list.status).toBe(200);
  const base = (overrides.publicBaseUrl ?? server.baseUrl).replace(/\/$/, '');
  return { server, base, prefix: server.config.keyPrefix, files, tools: list.json.result.tools, key: apiKey };
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `name` as a whole token: not part of a longer dotted name or identifier. */
const mentions = (text: string, name: string) => new RegExp(`(?<![\\w.])${escapeRe(name)}(?![\\w-]|\\.[A-Za-z])`).test(text);

/** Every dotted name in a tool namespace, every dotted heading and every dotted link text: things that read as tool names. */
function toolLikeNames(text: string, namespaces: Set<string>): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?<![\w./:-])([a-z][A-Za-z0-9]*)\.([a-z][A-Za-z0-9]*)(?![\w/-]|\.[A-Za-z])/g)) {
    if (namespaces.has(m[1]!)) found.add(m[0]);
  }
  const dotted = /^`?([a-z][A-Za-z0-9]*\.[a-z][A-Za-z0-9]*)`?$/;
  for (const m of text.matchAll(/^#{2,6}\s+(.+?)\s*$/gm)) {
    const d = dotted.exec(m[1]!);
    if (d) found.add(d[1]!);
  }
  for (const m of text.matchAll(/\[([^\]]+)\]\(/g)) {
    const d = dotted.exec(m[1]!);
    if (d) found.add(d[1]!);
  }
  return found;
}

interface LlmsTxt { title: string; summary: string; sections: { name: string; items: { name: string; url: string; notes?: string }[] }[] }

/** llmstxt.org: an H1, a `>` summary, free non-heading content, then H2 sections that are lists of `[name](url): notes`. */
function parseLlmsTxt(text: string): LlmsTxt {
  const lines = text.split('\n');
  let i = 0;
  const skipBlank = () => {
    while (i < lines.length && lines[i]!.trim() === '') i++;
  };
  skipBlank();
  const title = lines[i++] ?? '';
  expect(title, 'first line').toMatch(/^# \S/);
  skipBlank();
  expect(lines[i] ?? '', 'summary after the H1').toMatch(/^> \S/);
  const summary = lines[i++]!.slice(2);
  const sections: LlmsTxt['sections'] = [];
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#/.test(line)) {
      expect(line, 'only H2 headings after the H1').toMatch(/^## \S/);
      sections.push({ name: line.slice(3).trim(), items: [] });
      continue;
    }
    if (sections.length === 0 || line.trim() === '') continue;
    const item = /^- \[([^\]]+)\]\(([^()\s]+)\)(?:: (.+))?$/.exec(line);
    expect(item, `list item under "## ${sections.at(-1)!.name}": ${line}`).not.toBeNull();
    sections.at(-1)!.items.push({ name: item![1]!, url: item![2]!, ...(item![3] && { notes: item![3] }) });
  }
  return { title, summary, sections };
}

function markdownLinks(text: string): string[] {
  return [...text.matchAll(/\]\(([^()\s]+)\)/g)].map((m) => m[1]!);
}

describe('discovery files on the default configuration', () => {
  let site: Site;
  beforeAll(async () => {
    site = await load();
  });
  afterAll(async () => {
    await site?.server.close();
  });

  test.each(PATHS)('GET %s: 200, UTF-8, with the right Content-Type', async (path) => {
    const res = await fetch(site.server.baseUrl + path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(FILES[path]);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).not.toThrow();
    expect([...bytes.slice(0, 3)]).not.toEqual([0xef, 0xbb, 0xbf]);
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    expect(bytes.length).toBeGreaterThan(200);
  });

  test.each(PATHS)('HEAD %s: the GET headers without a body', async (path) => {
    const get = await fetch(site.server.baseUrl + path);
    const length = (await get.arrayBuffer()).byteLength;
    const head = await fetch(site.server.baseUrl + path, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(FILES[path]);
    expect(Number(head.headers.get('content-length'))).toBe(length);
    expect(await head.text()).toBe('');
  });

  test.each(PATHS.flatMap((path) => ['POST', 'PUT', 'DELETE', 'PATCH'].map((method) => [path, method] as const)))('%s answers %s with 405 and Allow', async (path, method) => {
    const res = await fetch(site.server.baseUrl + path, { method, headers: { 'content-type': 'text/plain' }, body: method === 'DELETE' ? undefined : 'x' });
    expect(res.status).toBe(405);
    const allow = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim());
    expect(allow).toContain('GET');
    expect(allow).toContain('HEAD');
    expect(allow).not.toContain(method);
  });

  it('llms.txt follows llmstxt.org: H1, summary, H2 lists of links', () => {
    const parsed = parseLlmsTxt(site.files['/llms.txt']);
    expect(parsed.sections.length).toBeGreaterThan(0);
    for (const section of parsed.sections) expect(section.items.length, section.name).toBeGreaterThan(0);
  });

  it('every link in llms.txt resolves on the same server', async () => {
    const parsed = parseLlmsTxt(site.files['/llms.txt']);
    const urls = new Set(parsed.sections.flatMap((s) => s.items.map((item) => item.url)));
    expect(urls.size).toBeGreaterThan(0);
    for (const url of urls) {
      const target = new URL(url, site.base);
      expect(target.origin, url).toBe(new URL(site.base).origin);
      const res = await fetch(target);
      expect(res.status, url).toBe(200);
      await res.arrayBuffer();
    }
  });

  it('llms.txt links both other discovery files', () => {
    const links = markdownLinks(site.files['/llms.txt']).map((u) => new URL(u, site.base).pathname);
    expect(links).toContain('/agent.md');
    expect(links).toContain('/llms-full.txt');
  });

  test.each(PATHS)('%s names the endpoint, the Bearer scheme, the key prefix and the bootstrap flow', (path) => {
    const text = site.files[path];
    expect(text).toContain(`${site.base}/api/mcp/v1`);
    expect(text).toContain('Authorization: Bearer');
    expect(text).toContain(`${site.prefix}_live_`);
    expect(text).toContain(`${site.base}/api/agent/bootstrap`);
    for (const field of BOOTSTRAP_FIELDS) expect(text, field).toMatch(new RegExp(`\\b${field}\\b`));
    expect(text).toContain('apiKey');
    expect(text).toContain('claimUrl');
  });

  test.each(['/agent.md', '/llms-full.txt'] as const)('%s names every tool of tools/list', (path) => {
    for (const tool of site.tools) expect(mentions(site.files[path], tool.name), tool.name).toBe(true);
  });

  test.each(PATHS)('%s names no tool that tools/list lacks', (path) => {
    const listed = new Set(site.tools.map((t) => t.name));
    const namespaces = new Set(site.tools.map((t) => t.name.split('.')[0]!));
    const named = toolLikeNames(site.files[path], namespaces);
    expect(named.size).toBeGreaterThan(0);
    expect([...named].filter((n) => !listed.has(n))).toEqual([]);
  });

  it('llms-full.txt carries each tool\'s inputSchema under the tool\'s heading', () => {
    const sections = site.files['/llms-full.txt'].split(/^(?=#{2,3} )/m);
    for (const tool of site.tools) {
      const section = sections.find((s) => {
        const heading = s.split('\n', 1)[0]!;
        return /^#{2,3} /.test(heading) && mentions(heading, tool.name);
      });
      expect(section, `a heading for ${tool.name}`).toBeDefined();
      const blocks = [...section!.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1]!));
      expect(blocks, tool.name).toContainEqual(tool.inputSchema);
    }
  });

  it('agent.md marks exactly the streaming tools of the description as streaming, and they do stream', async () => {
    const marked = site.files['/agent.md'].split('\n')
      .filter((line) => /^- `[^`]+`/.test(line) && /stream/i.test(line.split(':', 1)[0]!))
      .map((line) => /^- `([^`]+)`/.exec(line)![1]);
    expect(marked.sort()).toEqual([...STREAMING_TOOLS].sort());
    const streamed = await post(site.server.mcpUrl, call('schedule.preview', { expression: '0 9 * * 1', count: 2 }), { key: site.key });
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(finalMessage(streamed).result.isError).toBeFalsy();
    const plain = await post(site.server.mcpUrl, call('workspace.get'), { key: site.key });
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
  });

  test.each(['/agent.md', '/llms-full.txt'] as const)('%s describes the bootstrap reply as it is', async (path) => {
    const res = await fetch(`${site.server.baseUrl}/api/agent/bootstrap`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ humanEmail: 'docs-check@example.com', agentName: 'docs', workspaceName: 'Docs', canvasName: 'Docs' }),
    });
    const reply = await res.json() as Record<string, unknown>;
    const section = site.files[path].split(/^(?=## )/m).find((s) => /^## .*bootstrap/i.test(s));
    expect(section).toBeDefined();
    for (const field of ['apiKey', 'claimUrl', 'claimEmail']) {
      expect(section, field).toContain(`\`${field}\``);
      expect(reply, field).toHaveProperty(field);
    }
    // Every claimEmail value the guide names is one the service can give.
    const values = [...section!.matchAll(/`(sent|failed|pending|[a-z]+)`/g)].map((m) => m[1]).filter((v) => ['sent', 'failed', 'pending'].includes(v!));
    expect(values).toContain(reply.claimEmail);
  });

  it('agent.md\'s client configuration is valid JSON pointing at the endpoint', () => {
    const snippet = /`(\{"mcpServers"[^`]*)`/.exec(site.files['/agent.md']);
    expect(snippet).not.toBeNull();
    const config = JSON.parse(snippet![1]!) as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> };
    const entries = Object.values(config.mcpServers);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.url).toBe(`${site.base}/api/mcp/v1`);
    expect(entries[0]!.headers.Authorization).toMatch(/^Bearer \S/);
  });

  it('agent.md names the server as initialize does (DISC-10)', async () => {
    const init = await post(site.server.mcpUrl, {
      jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'discovery-test', version: '0' } },
    }, { key: site.key });
    const { name, version } = init.json.result.serverInfo as { name: string; version: string };
    expect(mentions(site.files['/agent.md'], name)).toBe(true);
    expect(site.files['/agent.md']).toMatch(new RegExp(`${escapeRe(name)}\\W+(?:version\\s+)?v?${escapeRe(version)}\\b`));
  });
});

describe('discovery files with a configured public base URL and key prefix', () => {
  const publicBaseUrl = 'https://canvas.example.test';
  let site: Site;
  beforeAll(async () => {
    site = await load({ publicBaseUrl: `${publicBaseUrl}/`, keyPrefix: 'acme' });
  });
  afterAll(async () => {
    await site?.server.close();
  });

  test.each(PATHS)('%s uses the public base URL and the configured prefix', (path) => {
    const text = site.files[path];
    expect(text).toContain(`${publicBaseUrl}/api/mcp/v1`);
    expect(text).toContain(`${publicBaseUrl}/api/agent/bootstrap`);
    expect(text).toContain('acme_live_');
    expect(text).not.toContain('cnv_live_');
    expect(text).not.toContain(site.server.baseUrl);
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain(`${publicBaseUrl}//`);
    for (const url of [...markdownLinks(text), ...(text.match(/https?:\/\/[^\s`")<>]+/g) ?? [])]) expect(url.startsWith(`${publicBaseUrl}/`), url).toBe(true);
  });

  it('links in llms.txt resolve once mapped to the listening address', async () => {
    const parsed = parseLlmsTxt(site.files['/llms.txt']);
    for (const item of parsed.sections.flatMap((s) => s.items)) {
      const url = new URL(item.url);
      expect(url.origin).toBe(publicBaseUrl);
      const res = await fetch(site.server.baseUrl + url.pathname + url.search);
      expect(res.status, item.url).toBe(200);
      await res.arrayBuffer();
    }
  });
});
