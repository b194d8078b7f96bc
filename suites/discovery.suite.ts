import { followPages, listed } from '../src/wire/list-pages.js';
import { type CheckContext, defineSuite } from '../src/engine/check.js';
import { finalMessage } from '../src/mcp/mcp-session.js';
import type { WireResponse } from '../src/wire/client.js';
import { absoluteUrls } from '../src/judging/handed-out-urls.js';

const { check, describe, seal } = defineSuite('discovery');

/**
 * The discovery files of service.md §Endpoints 3. llms.txt is read by the llmstxt.org proposal; all three
 * are compared with the service itself: `tools/list`, the MCP endpoint, the key format, the bootstrap flow.
 */

const PATHS = ['/agent.md', '/llms.txt', '/llms-full.txt'] as const;
type Path = (typeof PATHS)[number];
type Files = Record<Path, WireResponse>;

/** The tools the description names: the five streaming tools and `blocks.list`. */
const DESCRIBED_TOOLS = ['blocks.create', 'blocks.build', 'dataSources.testConnection', 'dataSources.triggerRefresh', 'schedule.preview', 'blocks.list'];
const BOOTSTRAP_WORDS = ['humanEmail', 'agentName', 'workspaceName', 'canvasName', 'apiKey', 'claimUrl'];
/** At most this many distinct links of llms.txt are fetched. */
const MAX_LINKS = 20;
const MAX_TOOL_PAGES = 10;

async function fetchFiles(c: CheckContext): Promise<Files> {
  const replies = await Promise.all(PATHS.map((p) => c.http.request(`${c.target.baseUrl}${p}`, { method: 'GET', headers: { accept: 'text/markdown, text/plain;q=0.9, */*;q=0.1' } })));
  return Object.fromEntries(PATHS.map((p, i) => [p, replies[i]!])) as Files;
}

/** The files' texts; the check fails unless each was served. */
async function texts(c: CheckContext): Promise<Record<Path, string>> {
  const files = await fetchFiles(c);
  const missing = PATHS.filter((p) => files[p].status !== 200).map((p) => `${p}: ${files[p].status}`);
  c.verify(missing.length === 0, `the discovery files are served (${missing.join('; ')})`, 200, missing);
  return Object.fromEntries(PATHS.map((p) => [p, files[p].text])) as Record<Path, string>;
}

/** Every tool name of `tools/list`, following cursors (bounded). */
async function toolNames(c: CheckContext): Promise<string[]> {
  const pages = await followPages(async (cursor) => {
    const res = await c.mcp.request('tools/list', cursor === undefined ? undefined : { cursor });
    const result = finalMessage(res)?.result;
    c.verify(res.status === 200 && Array.isArray(result?.tools), 'tools/list answers with a list of tools', 'result.tools', res.status);
    return result;
  }, MAX_TOOL_PAGES);
  return listed(pages).map((t: { name: string }) => t.name);
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `name` as a whole token: not part of a longer dotted name or identifier. */
const mentions = (text: string, name: string) => new RegExp(`(?<![\\w.])${escapeRe(name)}(?![\\w-]|\\.[A-Za-z])`).test(text);

/** Lines outside fenced code blocks, with their H2 section. */
function proseLines(text: string): { line: string; section: string }[] {
  const out: { line: string; section: string }[] = [];
  let fenced = false;
  let section = '';
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const h2 = /^##\s+(.+?)\s*#*\s*$/.exec(line);
    if (h2) section = h2[1]!;
    out.push({ line, section });
  }
  return out;
}

/**
 * What reads as a tool name: dotted names in a namespace of `tools/list` anywhere, and under an H2 about
 * tools, each H3+ heading and the leading code span or link text of each list item.
 */
function namedTools(text: string, namespaces: Set<string>): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?<![\w./:-])([a-z][A-Za-z0-9_]*)\.([a-z][A-Za-z0-9_]*)(?![\w/-]|\.[A-Za-z])/g)) {
    if (namespaces.has(m[1]!)) found.add(m[0]);
  }
  for (const { line, section } of proseLines(text)) {
    if (!/tool/i.test(section)) continue;
    const heading = /^#{3,6}\s+`?([^\s`]+)`?\s*$/.exec(line);
    const item = /^\s*[-*+]\s+(?:`([^`\s]+)`|\[`?([^\]`\s]+)`?\]\()/.exec(line);
    const name = heading?.[1] ?? item?.[1] ?? item?.[2];
    if (name) found.add(name);
  }
  return found;
}

interface LlmsTxt { h1?: string; problems: string[]; links: { name: string; url: string; section: string }[] }

/**
 * llmstxt.org: an H1, a `>` summary, free non-heading content, then H2 sections that are lists of
 * `[name](url)`, optionally followed by `: notes`.
 */
function parseLlmsTxt(text: string): LlmsTxt {
  const lines = proseLines(text).map((l) => l.line);
  const problems: string[] = [];
  const links: LlmsTxt['links'] = [];
  let i = 0;
  while (i < lines.length && lines[i]!.trim() === '') i++;
  const first = lines[i] ?? '';
  const h1 = /^# \S/.test(first) ? first.slice(2).trim() : undefined;
  if (h1 === undefined) return { problems: [`the first line is not an H1: ${JSON.stringify(first.slice(0, 80))}`], links };
  i++;
  while (i < lines.length && lines[i]!.trim() === '') i++;
  if (!/^>\s?\S/.test(lines[i] ?? '')) problems.push(`no "> " summary right after the H1 (found ${JSON.stringify((lines[i] ?? '').slice(0, 80))})`);
  let section: string | undefined;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#/.test(line)) {
      if (!/^## \S/.test(line)) problems.push(`a heading other than H2 after the H1: ${JSON.stringify(line.slice(0, 80))}`);
      else section = line.slice(3).trim();
      continue;
    }
    if (section === undefined || line.trim() === '') continue;
    const item = /^\s*[-*+] \[([^\]]+)\]\(([^()\s]+)\)(?::\s*(.*))?\s*$/.exec(line);
    if (!item) problems.push(`under "## ${section}", not a "[name](url)" list item: ${JSON.stringify(line.slice(0, 80))}`);
    else links.push({ name: item[1]!, url: item[2]!, section });
  }
  if (!links.length) problems.push('no H2 section with a list of links');
  return { h1, problems, links };
}

describe.concurrent('discovery', () => {
  // "GET `/agent.md`: Compact operating guide for agents. GET `/llms.txt`: Short discovery index. GET
  // `/llms-full.txt`: Complete agent context in one file. These are served on the application domain."
  check({ ids: 'discovery-files-served', name: 'GET /agent.md, /llms.txt and /llms-full.txt answer 200 with content', run: async (c) => {
    const files = await fetchFiles(c);
    const wrong = PATHS.filter((p) => files[p].status !== 200 || files[p].text.trim() === '').map((p) => `${p}: ${files[p].status}, ${files[p].text.length} characters`);
    c.verify(wrong.length === 0, `each file answers 200 with a body (${wrong.join('; ')})`, '200 and content', wrong);
  } });

  // "A sender that generates a message containing content SHOULD generate a Content-Type header field in that
  // message." (Markdown text: text/markdown or text/plain, charset=utf-8.)
  check({ ids: 'discovery-content-type', name: 'the files are served as text/markdown or text/plain with charset=utf-8', run: async (c) => {
    const files = await fetchFiles(c);
    const wrong: string[] = [];
    for (const p of PATHS) {
      const type = files[p].headers['content-type'] ?? '';
      const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type)?.[1]?.toLowerCase();
      if (!['text/markdown', 'text/plain', 'text/x-markdown'].includes(files[p].mediaType) || (charset !== 'utf-8' && charset !== 'utf8')) wrong.push(`${p}: ${type || '(none)'}`);
      if (files[p].text.includes('\uFFFD')) c.observe(`${p}: the body is not valid UTF-8 (replacement characters after decoding)`);
    }
    c.verify(wrong.length === 0, `each file is text with charset=utf-8 (${wrong.join('; ')})`, 'text/markdown or text/plain; charset=utf-8', wrong);
  } });

  // "A file following the spec contains the following sections as markdown, in the specific order: An H1 with
  // the name of the project or site. This is the only required section."
  check({ ids: 'discovery-llms-txt-h1', name: 'llms.txt begins with an H1', run: async (c) => {
    const { '/llms.txt': text } = await texts(c);
    const first = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
    c.verify(/^# \S/.test(first), 'the first non-blank line of llms.txt is "# <name>"', '# <name>', first.slice(0, 80));
  } });

  // "A blockquote with a short summary of the project ... Zero or more markdown sections delimited by H2
  // headers, containing "file lists" of URLs. Each "file list" is a markdown list, containing a required
  // markdown hyperlink [name](url), then optionally a : and notes about the file."
  check({ ids: 'discovery-llms-txt-structure', name: 'llms.txt has a "> " summary and H2 sections that are lists of [name](url) links', run: async (c) => {
    const { '/llms.txt': text } = await texts(c);
    const parsed = parseLlmsTxt(text);
    c.verify(parsed.problems.length === 0, `llms.txt follows llmstxt.org (${parsed.problems.slice(0, 5).join('; ')})`, 'H1, > summary, H2 lists of [name](url)', parsed.problems.slice(0, 5));
  } });

  // "Zero or more markdown sections delimited by H2 headers, containing "file lists" of URLs where further detail
  // is available." (Each link on the service's own host answers GET below 400.)
  check({ ids: 'discovery-links-resolve', name: 'the links of llms.txt on the service\'s host resolve', run: async (c) => {
    const { '/llms.txt': text } = await texts(c);
    const base = new URL(c.target.baseUrl);
    // A deployment may name its public address: links there are read from the target itself.
    const named = [...text.matchAll(/https?:\/\/[^\s`'"()<>\]]+?\/api\/mcp\/v1\b/g)].map((m) => new URL(m[0]).origin);
    const own = new Set([base.origin, ...named]);
    const links = [...text.matchAll(/\]\(([^()\s]+)\)/g)].map((m) => m[1]!);
    const urls = new Set<string>();
    for (const link of links) {
      let url: URL;
      try {
        url = new URL(link, `${c.target.baseUrl}/llms.txt`);
      } catch {
        c.verify(false, `every link is a URL (${link})`, 'URL', link);
        return;
      }
      if (!own.has(url.origin)) {
        c.observe(`not followed (another host): ${url.origin}`);
        continue;
      }
      urls.add(`${base.origin}${url.pathname}${url.search}`);
    }
    if (urls.size === 0) c.observe('llms.txt has no link on the service\'s host');
    const picked = [...urls].slice(0, MAX_LINKS);
    if (urls.size > MAX_LINKS) c.observe(`${urls.size} links; the first ${MAX_LINKS} were fetched`);
    const replies = await Promise.all(picked.map(async (u) => ({ u, res: await c.http.request(u, { method: 'GET' }) })));
    const broken = replies.filter((r) => r.res.status >= 400).map((r) => `${new URL(r.u).pathname}: ${r.res.status}`);
    c.verify(broken.length === 0, `every link resolves (${broken.join('; ')})`, '< 400', broken);
  } });

  // "The server's `tools/list` is the source of truth for the tool set."
  check({ ids: 'discovery-tools-exist', name: 'every tool the discovery files name is in tools/list', run: async (c) => {
    const [files, tools] = await Promise.all([texts(c), toolNames(c)]);
    const inList = new Set(tools);
    const namespaces = new Set(tools.filter((t) => t.includes('.')).map((t) => t.split('.')[0]!));
    const unknown: string[] = [];
    for (const p of PATHS) for (const name of namedTools(files[p], namespaces)) if (!inList.has(name)) unknown.push(`${p}: ${name}`);
    c.verify(unknown.length === 0, `the files name only tools of tools/list (${unknown.slice(0, 10).join('; ')})`, 'names from tools/list', unknown.slice(0, 10));
  } });

  // "GET `/llms-full.txt`: Complete agent context in one file." (It names every tool of `tools/list`.)
  check({ ids: 'discovery-full-complete', name: 'llms-full.txt names every tool of tools/list', run: async (c) => {
    const [files, tools] = await Promise.all([texts(c), toolNames(c)]);
    const absent = tools.filter((t) => !mentions(files['/llms-full.txt'], t));
    c.verify(absent.length === 0, `llms-full.txt names every tool (${absent.join(', ')} missing)`, tools, absent);
  } });

  // "GET `/agent.md`: Compact operating guide for agents." (It names the five streaming tools and blocks.list.)
  check({ ids: 'discovery-agent-md-tools', name: 'agent.md names the five streaming tools and blocks.list', run: async (c) => {
    const { '/agent.md': text } = await texts(c);
    const absent = DESCRIBED_TOOLS.filter((t) => !mentions(text, t));
    c.verify(absent.length === 0, `agent.md names the tools of the description (${absent.join(', ')} missing)`, DESCRIBED_TOOLS, absent);
  } });

  // "They include the current agent-first bootstrap flow."
  check({ ids: 'discovery-bootstrap-flow', name: 'each file names POST /api/agent/bootstrap; agent.md and llms-full.txt give its four fields, apiKey and claimUrl', run: async (c) => {
    const files = await texts(c);
    const missing: string[] = [];
    for (const p of PATHS) {
      if (!files[p].includes('/api/agent/bootstrap')) missing.push(`${p}: /api/agent/bootstrap`);
      const absent = BOOTSTRAP_WORDS.filter((w) => !new RegExp(`\\b${w}\\b`).test(files[p]));
      // The short index includes the flow by naming it; the guide and the complete context spell it out.
      if (p === '/llms.txt') {
        if (absent.length) c.observe(`${p} names the bootstrap endpoint but not ${absent.join(', ')} (a short index may leave them to the other files)`);
      } else {
        for (const w of absent) missing.push(`${p}: ${w}`);
      }
    }
    c.verify(missing.length === 0, `each file includes the bootstrap flow (${missing.slice(0, 10).join('; ')})`, ['/api/agent/bootstrap', ...BOOTSTRAP_WORDS], missing.slice(0, 10));
  } });

  // "Compact operating guide for agents; complete agent context in one file; short discovery index." (Each
  // names the MCP endpoint and `Authorization: Bearer` with a `<KEY_PREFIX>_live_<secret>` key.)
  check({ ids: 'discovery-describes-connection', name: 'each file names the MCP endpoint, Authorization: Bearer and the key form', run: async (c) => {
    const files = await texts(c);
    const form = c.target.keyPrefix ? `${c.target.keyPrefix}_live_` : '_live_';
    const missing: string[] = [];
    for (const p of PATHS) {
      if (!files[p].includes('/api/mcp/v1')) missing.push(`${p}: /api/mcp/v1`);
      if (!/Authorization:\s*Bearer\b/i.test(files[p])) missing.push(`${p}: Authorization: Bearer`);
      if (!files[p].includes(form)) missing.push(`${p}: ${form}<secret>`);
    }
    c.verify(missing.length === 0, `each file says how to connect (${missing.join('; ')})`, ['/api/mcp/v1', 'Authorization: Bearer', `${form}<secret>`], missing);
  } });

  // "There is exactly one MCP endpoint: `{base_url}/api/mcp/v1`." (Every MCP endpoint URL the files give is
  // that one, on the public origin when it is known: declared, or the harness's own server's.)
  check({ ids: 'discovery-endpoint-correct', name: 'every MCP endpoint the files give is the target\'s /api/mcp/v1', run: async (c) => {
    const files = await texts(c);
    const endpoint = new URL(c.target.mcpUrl);
    const publicOrigin = c.target.publicBaseUrl;
    const wrong: string[] = [];
    for (const p of PATHS) {
      for (const { raw, url } of absoluteUrls(files[p])) {
        if (!url.pathname.startsWith('/api/mcp')) continue;
        if (url.pathname.replace(/\/$/, '') !== endpoint.pathname) wrong.push(`${p}: ${raw}`);
        else if (publicOrigin !== undefined) {
          if (url.origin !== publicOrigin) wrong.push(`${p}: ${raw} (the public base URL is ${publicOrigin})`);
        } else if (url.origin !== endpoint.origin) {
          // Right for a deployment tested at an internal address; the user can make it a gate.
          c.observe(`${p} names the endpoint on ${url.origin} (the target was reached at ${endpoint.origin}); declare the public origin with --public-base-url (or the profile's "publicBaseUrl") to fail a file that names another`);
        }
      }
      for (const m of files[p].matchAll(/(?<![\w/.:-])\/api\/mcp(?:\/[\w.-]*)?/g)) if (m[0].replace(/\/$/, '') !== endpoint.pathname) wrong.push(`${p}: ${m[0]}`);
    }
    const expected = publicOrigin !== undefined ? `${publicOrigin}${endpoint.pathname}` : c.target.mcpUrl;
    c.verify(wrong.length === 0, `the files name no other MCP endpoint (${wrong.slice(0, 5).join('; ')})`, expected, wrong.slice(0, 5));
  } });
});

export default seal();
