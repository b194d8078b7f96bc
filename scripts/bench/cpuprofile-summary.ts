/**
 * Summarizes a V8 .cpuprofile (from `node --cpu-prof`): self time by function, top N, with total
 * (inclusive) time and file:line, plus self time by origin (package, node core, project directory).
 *
 * The project runs compiled (dist/), so the profile's line numbers are those of the compiled code; with
 * the source maps written by reference-server.ts --sourcemaps (a build with --inlineSourceMap) they are
 * mapped back to .ts lines. Lines are 1-based; a function's line is where it starts, and "hot" is
 * its line with the most samples (V8 position ticks) when the profile has them.
 *
 *   node dist/scripts/bench/cpuprofile-summary.js <file.cpuprofile> [--sourcemaps <file.json>] [--top 25]
 *       [--from-us <n> --to-us <n>]   (a window in the profile's clock, microseconds)
 *       [--requests <n>]              (responses in that window: adds µs per request)
 */
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { fixed, int, pct, renderTable } from './table.js';

interface CallFrame { functionName: string; url: string; lineNumber: number; columnNumber: number }
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
  positionTicks?: { line: number; ticks: number }[];
}
export interface CpuProfile { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }

export interface SummaryOptions {
  /** { [file URL]: source map } as written by reference-server.ts --sourcemaps. */
  sourceMaps?: Record<string, SourceMapPayload>;
  /** Only samples taken in [fromUs, toUs) of the profile's clock. */
  window?: { fromUs: number; toUs: number };
  top?: number;
  /** Responses completed in the window: adds a self-time-per-request column. */
  requests?: number;
  /** Paths are shown relative to this directory. */
  root: string;
}

export interface FunctionStat {
  functionName: string;
  location: string;
  hotLine?: number;
  selfMs: number;
  /** Self time divided by the requests of the window (when given). */
  selfUsPerRequest?: number;
  selfShare: number;
  totalShare: number;
}

export interface ProfileSummary {
  windowMs: number;
  profiledMs: number;
  samples: number;
  intervalMs: number;
  idleShare: number;
  gcShare: number;
  functions: FunctionStat[];
  origins: { origin: string; selfShare: number }[];
  unmappedTs: number;
  text: string;
}

const SPECIAL = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);

export function summarizeProfile(profile: CpuProfile, options: SummaryOptions): ProfileSummary {
  const top = options.top ?? 25;
  const maps = new Map<string, SourceMap>();
  for (const [url, payload] of Object.entries(options.sourceMaps ?? {})) maps.set(url, new SourceMap(payload));

  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) byId.set(node.id, node);
  for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);

  // Sample i is taken at t[i]; it stands for the time until the next sample.
  const n = profile.samples.length;
  const times = new Array<number>(n);
  let t = profile.startTime;
  for (let i = 0; i < n; i++) times[i] = t += profile.timeDeltas[i] ?? 0;
  const weight = (i: number) => Math.max(0, (i + 1 < n ? times[i + 1]! : profile.endTime) - times[i]!);

  const keyOf = (f: CallFrame) => `${f.functionName}\u0000${f.url}\u0000${f.lineNumber}\u0000${f.columnNumber}`;
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const frames = new Map<string, CallFrame>();
  const nodeHits = new Map<number, number>();
  let windowUs = 0;
  let samples = 0;
  for (let i = 0; i < n; i++) {
    if (options.window && (times[i]! < options.window.fromUs || times[i]! >= options.window.toUs)) continue;
    const w = weight(i);
    windowUs += w;
    samples++;
    const leafId = profile.samples[i]!;
    nodeHits.set(leafId, (nodeHits.get(leafId) ?? 0) + 1);
    const leaf = byId.get(leafId)!;
    const leafKey = keyOf(leaf.callFrame);
    frames.set(leafKey, leaf.callFrame);
    self.set(leafKey, (self.get(leafKey) ?? 0) + w);
    const seen = new Set<string>();
    for (let id: number | undefined = leafId; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      const key = keyOf(frame);
      if (seen.has(key)) continue; // recursion counts once
      seen.add(key);
      frames.set(key, frame);
      total.set(key, (total.get(key) ?? 0) + w);
    }
  }

  // Position ticks (line-level samples) are per node for the whole profile; a window cannot split
  // them, so they only pick the hottest line, weighted by the node's share of in-window samples.
  const lineTicks = new Map<string, Map<number, number>>();
  for (const node of profile.nodes) {
    if (!node.positionTicks?.length || !nodeHits.get(node.id)) continue;
    const key = keyOf(node.callFrame);
    const lines = lineTicks.get(key) ?? new Map<number, number>();
    const all = node.positionTicks.reduce((s, p) => s + p.ticks, 0);
    for (const p of node.positionTicks) lines.set(p.line, (lines.get(p.line) ?? 0) + (p.ticks / all) * nodeHits.get(node.id)!);
    lineTicks.set(key, lines);
  }

  let unmappedTs = 0;
  const displayPath = (url: string) => {
    if (!url.startsWith('file://')) return url;
    const rel = relative(options.root, fileURLToPath(url));
    return rel.startsWith('..') ? fileURLToPath(url) : rel;
  };
  /** 1-based original line for a 0-based generated position, or undefined when unknown. */
  const originalLine = (url: string, line0: number, column0: number): number | undefined => {
    const map = maps.get(url);
    if (!map) return /\.[cm]?tsx?$/.test(url) ? undefined : line0 + 1;
    const entry = map.findEntry(line0, column0) as { originalLine?: number };
    return entry.originalLine === undefined ? undefined : entry.originalLine + 1;
  };
  const locate = (f: CallFrame) => {
    if (!f.url) return SPECIAL.has(f.functionName) ? '' : '(native)';
    const line = originalLine(f.url, f.lineNumber, f.columnNumber);
    if (line === undefined) unmappedTs++;
    return `${displayPath(f.url)}:${line ?? `${f.lineNumber + 1} (compiled, unmapped)`}`;
  };
  const hottestLine = (key: string, f: CallFrame): number | undefined => {
    // Position ticks carry a line but no column, and a compiler may pack many .ts lines into one compiled
    // line: they only locate a line in files that run as written (node core, node_modules).
    if (!f.url || maps.has(f.url) || /\.[cm]?tsx?$/.test(f.url)) return undefined;
    const lines = lineTicks.get(key);
    if (!lines || lines.size < 2) return undefined;
    return [...lines.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  };

  const share = (us: number) => (windowUs > 0 ? us / windowUs : 0);
  const idleUs = [...self].filter(([k]) => frames.get(k)!.functionName === '(idle)' && !frames.get(k)!.url).reduce((s, [, v]) => s + v, 0);
  const gcUs = [...self].filter(([k]) => frames.get(k)!.functionName === '(garbage collector)').reduce((s, [, v]) => s + v, 0);
  const ranked = [...self.entries()]
    .filter(([k]) => frames.get(k)!.functionName !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, top);
  const functions: FunctionStat[] = ranked.map(([key, us]) => {
    const f = frames.get(key)!;
    const hot = hottestLine(key, f);
    return {
      functionName: f.functionName || '(anonymous)',
      location: locate(f),
      ...(hot !== undefined && { hotLine: hot }),
      selfMs: us / 1000,
      ...(options.requests && { selfUsPerRequest: us / options.requests }),
      selfShare: share(us),
      totalShare: share(total.get(key) ?? 0),
    };
  });

  const originOf = (f: CallFrame): string => {
    if (!f.url) return SPECIAL.has(f.functionName) ? f.functionName : '(native: V8 builtins, C++)';
    if (f.url.startsWith('node:')) return 'node: core modules';
    const nm = f.url.lastIndexOf('/node_modules/');
    if (nm >= 0) {
      const parts = f.url.slice(nm + '/node_modules/'.length).split('/');
      return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
    }
    const path = displayPath(f.url);
    return path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : path;
  };
  const origins = new Map<string, number>();
  for (const [key, us] of self) {
    const f = frames.get(key)!;
    if (f.functionName === '(idle)' && !f.url) continue;
    const o = originOf(f);
    origins.set(o, (origins.get(o) ?? 0) + us);
  }
  const originList = [...origins.entries()].sort((a, b) => b[1] - a[1]).map(([origin, us]) => ({ origin, selfShare: share(us) }));

  const profiledMs = (profile.endTime - profile.startTime) / 1000;
  const intervalMs = samples > 0 ? windowUs / samples / 1000 : 0;
  const lines = [
    `window   ${fixed(windowUs / 1e6, 2)} s of ${fixed(profiledMs / 1000, 2)} s profiled, ${int(samples)} samples (every ${fixed(intervalMs, 2)} ms)`,
    `busy     ${pct(1 - share(idleUs))} of the window (idle ${pct(share(idleUs))}), garbage collection ${pct(share(gcUs))}`
      + (options.requests ? `; ${int(options.requests)} responses, ${fixed((windowUs - idleUs) / options.requests, 1)} µs busy per response` : ''),
    '',
    `Self time by function, top ${top} (shares of the window; total = inclusive, callees included)`,
    renderTable(
      ['#', 'Self ms', ...(options.requests ? ['µs/req'] : []), 'Self', 'Total', 'Function', 'Location (file:line where the function starts; hot = its busiest line)'],
      functions.map((f, i) => [
        String(i + 1), fixed(f.selfMs, 0), ...(f.selfUsPerRequest !== undefined ? [fixed(f.selfUsPerRequest, 1)] : []), pct(f.selfShare), pct(f.totalShare), f.functionName,
        `${f.location}${f.hotLine !== undefined ? `  hot ${f.hotLine}` : ''}`,
      ]),
      ['r', 'r', ...(options.requests ? ['r' as const] : []), 'r', 'r', 'l', 'l'],
    ),
    '',
    'Self time by origin',
    renderTable(['Origin', 'Self'], originList.filter((o) => o.selfShare >= 0.001).map((o) => [o.origin, pct(o.selfShare)]), ['l', 'r']),
  ];
  if (unmappedTs > 0) lines.push(`(${unmappedTs} TypeScript locations had no source map: their line numbers are of tsx's compiled code)`);
  return {
    windowMs: windowUs / 1000, profiledMs, samples, intervalMs, idleShare: share(idleUs), gcShare: share(gcUs),
    functions, origins: originList, unmappedTs, text: lines.join('\n'),
  };
}

// CLI
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const usage = 'Usage: node dist/scripts/bench/cpuprofile-summary.js <file.cpuprofile> [--sourcemaps <file.json>] [--top <n>] [--from-us <n> --to-us <n>] [--requests <n>]';
  let parsed;
  try {
    parsed = parseArgs({
      options: { sourcemaps: { type: 'string' }, top: { type: 'string' }, 'from-us': { type: 'string' }, 'to-us': { type: 'string' }, requests: { type: 'string' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    console.error(`error: ${(err as Error).message}\n${usage}`);
    process.exit(2);
  }
  const { values, positionals } = parsed;
  const topN = values.top === undefined ? 25 : Number(values.top);
  const requests = values.requests === undefined ? undefined : Number(values.requests);
  if (positionals.length !== 1 || !Number.isInteger(topN) || topN < 1 || (requests !== undefined && !(requests > 0)) || (values['from-us'] === undefined) !== (values['to-us'] === undefined)) {
    console.error(usage);
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as CpuProfile;
  const sourceMaps = values.sourcemaps ? JSON.parse(readFileSync(values.sourcemaps, 'utf8')) as Record<string, SourceMapPayload> : undefined;
  const window = values['from-us'] !== undefined ? { fromUs: Number(values['from-us']), toUs: Number(values['to-us']) } : undefined;
  const root = fileURLToPath(new URL('../../', import.meta.url));
  console.log(summarizeProfile(profile, { root, top: topN, ...(requests && { requests }), ...(sourceMaps && { sourceMaps }), ...(window && { window }) }).text);
}
