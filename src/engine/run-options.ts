import type { Revision } from '../catalog/types.js';
import type { LimitsOption } from '../profile/limits.js';
import type { PropertyBudget } from './property.js';
import type { Secrets } from '../kit/scrub.js';
import type { ClientId } from '../interop/clients.js';
import type { ConformanceProgress } from './progress.js';

/**
 * A run's options and their defaults, apart from the run itself (src/engine/run.ts): the command line reads them
 * without loading the suites, so that bad usage is answered at once.
 */

export interface RunOptions {
  target: 'embedded' | 'url' | 'container' | 'stdio';
  baseUrl?: string;
  mcpUrl?: string;
  /** The deployment's public origin (`--public-base-url`), over the profile's `publicBaseUrl`. */
  publicBaseUrl?: string;
  headers: Record<string, string>;
  apiKey?: string;
  /** Where the given keys came from (`--api-key`, or the variable `MCP_API_KEY`): a refusal names it. */
  keySources?: { apiKey?: string; otherKey?: string };
  /** A live key of a second workspace (`--other-key`), for the isolation rows without bootstrap. */
  otherKey?: string;
  revokedKey?: string;
  mailboxUrl?: string;
  /**
   * Bootstrap requests the run may send (`--bootstrap-budget`): each may create a workspace and mail a
   * human on the deployment. Default: DEFAULT_BOOTSTRAP_BUDGET for deployments, unbounded on the embedded target.
   */
  bootstrapBudget?: number;
  /** Time the whole run may spend waiting out 429s (`--wait-budget`, ms; default DEFAULT_WAIT_BUDGET_MS). */
  waitBudgetMs?: number;
  /** Declared limits of the run's key's plan (`--limits`) and of `--other-key`'s (`--other-limits`), over the profile's. */
  limits?: { key?: LimitsOption; other?: LimitsOption };
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
  /** The SDK clients of the interop matrix (`--clients`); absent: all. Rows of the others are not selected. */
  clients?: ClientId[];
  /** Embedded target only: run against a deliberately broken variant (the harness's own tests). */
  mutant?: string;
  /** Writes junit.xml and summary.md beside results.json, then report.html through `composeReportHtml` (the CLI does; by default only results.json). */
  writeReports?: boolean;
  /**
   * Writes report.html of the report directory from the runs it holds (src/reports/folder's writeReportHtml):
   * that layer sits above the harness, so the CLI hands it in. Called with the run's secrets.
   */
  composeReportHtml?: (dir: string, secrets: Secrets) => unknown;
  /** The command line that reproduces this run, for replay hints (keys never included). */
  replayBase?: string;
  /** Live progress on stderr (src/engine/progress.ts): fed by the run's events as checks start and end, scrubbed with the run's secrets. */
  progress?: ConformanceProgress;
}

/**
 * A deployment's default bootstrap budget: the keys of two workspaces, one shared reply for the reply
 * checks, a key to burst with, a workspace to fill to its cap, one body per bad-body check, and a few runs of
 * the bootstrap properties. Back to back, two runs stay within a bootstrap burst of 30 (the reference's
 * default), so neither sees a 429 of the other's making.
 */
export const DEFAULT_BOOTSTRAP_BUDGET = 16;
export const DEFAULT_WAIT_BUDGET_MS = 60_000;
/**
 * Groups (suite files) run side by side on a server the harness started: its limits are set for the checks.
 * On a deployment one at a time: side by side they trip its production rate limits (an SDK client's connect
 * refused with 429, streams served one after another), which would be false failures.
 */
export const GROUPS_AT_ONCE = { owned: 4, deployment: 1 } as const;
/** Checks of one `describe.concurrent` block run side by side, this many at most. */
export const CHECKS_AT_ONCE = 5;

/** The profile a user gets without --profile: the spec's own names on deployments, our recipes on our server. */
export function defaultProfile(target: RunOptions['target'], urls: { baseUrl?: string; mcpUrl?: string }): string {
  if (urls.mcpUrl) return 'generic';
  return target === 'url' || (target === 'stdio' && urls.baseUrl) ? 'service' : 'reference';
}

