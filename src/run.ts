import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startVitest } from 'vitest/node';
import { CATALOG } from './catalog/index.js';
import type { Revision } from './catalog/types.js';
import { loadProfile } from './profile.js';
import { QUICK_BUDGET, type PropertyBudget } from './property.js';
import { aggregate, decide, type Results } from './results.js';
import { prepareEmbedded, type TargetBase } from './targets/embedded.js';
import { TargetError, type PreparedTarget } from './targets/target.js';
import { prepareUrl } from './targets/url.js';
import { detectRevisions } from './targets/detect-revisions.js';
import type { CheckRecord } from './verdict.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

export interface RunOptions {
  target: 'embedded' | 'url' | 'container' | 'stdio';
  baseUrl?: string;
  mcpUrl?: string;
  headers: Record<string, string>;
  apiKey?: string;
  revokedKey?: string;
  mailboxUrl?: string;
  profile: string;
  protocol: 'auto' | Revision;
  only: string[];
  strict: boolean;
  /** Requirement ids expected to fail. */
  baseline: string[];
  reportDir: string;
  seed: number;
  /** Property checks' budget (default: the quick, time-boxed CI mode) and a counterexample to replay. */
  property?: PropertyBudget;
  timeoutMs: number;
  /** Stdio target: the command speaking MCP over stdio (default: the repo's own proxy). */
  stdioCommand?: string;
  /** Embedded target only: run against a deliberately broken variant (the harness's own tests). */
  mutant?: string;
  /** Extra suites to include (glob relative to the repo root); the default is every suite. */
  suites?: string[];
  /** Writes report files; the hooks for JUnit/Markdown/HTML writers register here. */
  writers?: ((results: Results, dir: string) => void)[];
  /** The command line that reproduces this run, for replay hints (keys never included). */
  replayBase?: string;
}

/** Ids selected by --only (exact ids or prefixes); empty selects all. */
export function selectRequirements(only: string[], profileKind: 'service' | 'generic') {
  return (r: (typeof CATALOG)[number]) =>
    (profileKind === 'service' || r.generic === true) && (only.length === 0 || only.some((o) => r.id === o || r.id.startsWith(o)));
}

async function prepare(options: RunOptions, base: TargetBase): Promise<PreparedTarget> {
  switch (options.target) {
    case 'embedded':
      return prepareEmbedded(base, options.mutant);
    case 'url':
      if (!options.baseUrl && !options.mcpUrl) throw new TargetError('--target url needs --base-url (or --mcp-url for the generic profile)');
      return prepareUrl(base, options.baseUrl ?? new URL(options.mcpUrl!).origin, options.mcpUrl, options.mailboxUrl);
    case 'container': {
      // Loaded on demand: testcontainers is heavy and only this target needs it.
      const { prepareContainer } = await import('./targets/container.js');
      return prepareContainer(base);
    }
    case 'stdio': {
      // The command's HTTP side: the embedded reference server, or the deployment at --base-url.
      const { prepareStdio } = await import('./targets/stdio.js');
      const http = options.baseUrl ? await prepareUrl(base, options.baseUrl, undefined, options.mailboxUrl) : await prepareEmbedded(base);
      return prepareStdio(http, options.stdioCommand);
    }
    default:
      throw new TargetError(`--target ${options.target} is not available yet`);
  }
}

/** Runs the suites against one target and writes the reports. Throws TargetError when the target is unusable. */
export async function runConformance(options: RunOptions): Promise<Results> {
  const profile = loadProfile(options.profile, ROOT);
  const selected = selectRequirements(options.only, profile.kind);
  if (!CATALOG.some(selected)) throw new TargetError(`--only ${options.only.join(',')} selects no requirement`);
  const startedAt = new Date();
  const started = performance.now();
  const target = await prepare(options, {
    headers: options.headers, apiKey: options.apiKey, revokedKey: options.revokedKey, profile,
    protocol: options.protocol, timeoutMs: options.timeoutMs, seed: options.seed, property: options.property ?? QUICK_BUDGET,
  });
  target.info.revisions = await detectRevisions(target.info);
  const records: CheckRecord[] = [];
  const suiteErrors: string[] = [];
  try {
    const vitest = await startVitest('test', [], {
      root: ROOT,
      include: options.suites ?? suiteFiles(options.only, selected),
      watch: false,
      config: false,
      reporters: [{
        onTestRunEnd(modules, unhandled) {
          for (const m of modules) for (const e of m.errors()) suiteErrors.push(`${m.moduleId}: ${e.message}`);
          for (const e of unhandled) suiteErrors.push(`unhandled: ${e.message}`);
          for (const m of modules) for (const t of m.children.allTests()) {
            const record = t.meta().conformance;
            if (record) records.push(record);
          }
        },
      }],
      provide: { target: target.info, only: options.only },
      pool: 'threads',
      testTimeout: 60_000,
      sequence: { seed: options.seed },
    }, { server: { watch: null } });
    await vitest?.close();
  } finally {
    await target.close();
  }
  // A suite that cannot load (an unknown requirement id, a syntax error) is a harness bug, never a verdict.
  if (suiteErrors.length > 0) throw new Error(`suite errors:\n${suiteErrors.join('\n')}`);
  for (const r of records) r.replay = replayCommand(options, r);
  const { requirements, totals } = aggregate(records, selected, new Set(options.baseline));
  const { exitCode, verdict } = decide(requirements, options.strict);
  const results: Results = {
    schemaVersion: 1,
    tool: { name: pkg.name, version: pkg.version },
    target: { kind: target.info.kind, baseUrl: target.info.baseUrl, mcpUrl: target.info.mcpUrl },
    profile: profile.name,
    protocolRevision: target.info.revisions.join(', ') || 'none detected',
    seed: options.seed,
    strict: options.strict,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    requirements,
    totals,
    verdict,
    exitCode,
  };
  const dir = resolve(options.reportDir);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  for (const write of options.writers ?? []) write(results, dir);
  return results;
}

/**
 * Only the suites of the selected requirements' groups are loaded, so a narrow --only stays fast. Property
 * suites tag ids of several groups: they always load, and their unselected checks skip.
 */
function suiteFiles(only: string[], selected: (r: (typeof CATALOG)[number]) => boolean): string[] {
  if (only.length === 0) return ['suites/**/*.suite.ts'];
  return [...[...new Set(CATALOG.filter(selected).map((r) => r.group))].map((g) => `suites/${g}.suite.ts`), 'suites/properties/*.suite.ts'];
}

/** The command that runs a check alone; a failed property's adds the path that replays its counterexample. */
function replayCommand(options: RunOptions, r: CheckRecord): string {
  const replay = r.property?.path ? ` --replay ${r.property.id}:${r.property.path}` : '';
  return `${options.replayBase ?? 'npm run conformance --'} --only ${r.requirementIds[0]!} --seed ${options.seed}${replay}`;
}
