import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { validateLimits, type DeclaredLimits } from './limits.js';

/** A tool call recipe: `{{name}}` in string arguments is replaced by a value captured earlier. */
export interface CallRecipe {
  tool: string;
  arguments: Record<string, unknown>;
  /**
   * Values to capture from the result: variable name -> JSON pointer into `structuredContent`, or
   * `{ "find": "<resource>" }` to find the resource's id by name anywhere in the result (derived profiles).
   */
  capture?: Record<string, string | { find: string }>;
  /**
   * The call is meant to fail: its result is a tool error (`isError: true`) by design, e.g. a recipe that
   * tests a connection known to be unreachable. Without it, a streaming call whose final result is a tool
   * error fails stream-final-result-ok.
   */
  expectError?: boolean;
}

/**
 * How to make meaningful calls on one implementation, since the description shows few arguments:
 * `setup` runs first (capturing ids), then `calls` name the recipes the suites need.
 */
export interface Profile {
  name: string;
  /** `service`: the hosted canvas service; `generic`: any Streamable HTTP MCP server. */
  kind: 'service' | 'generic';
  setup: CallRecipe[];
  /** A recipe per streaming tool (by tool name), and the named scenario calls. */
  streaming: Record<string, CallRecipe>;
  calls: {
    createBlock?: CallRecipe;
    publishBlock?: CallRecipe;
    listBlocks?: CallRecipe;
    /**
     * Registers a data source named `{{title}}` and captures `dataSourceId`, the variable the
     * `dataSources.testConnection` and `dataSources.triggerRefresh` recipes use (workspace-scoping checks).
     */
    createDataSource?: CallRecipe;
    listDataSources?: CallRecipe;
    /**
     * Saved schedules, for a target that offers them (the description's `schedule.preview` keeps none):
     * `createSchedule` names one `{{title}}` and captures `scheduleId`; `readSchedule` and `writeSchedule`
     * take `{{scheduleId}}`. Without them the checks build these from the target's tools/list.
     */
    createSchedule?: CallRecipe;
    listSchedules?: CallRecipe;
    readSchedule?: CallRecipe;
    writeSchedule?: CallRecipe;
  };
  /**
   * Build the recipes from the target's tools/list at the start of the run (src/profile/profile-derive.ts) instead
   * of writing them down: the `service` profile, for deployments the harness knows nothing of.
   */
  derive?: boolean;
  /** Recipes that could not be built (by tool or call name), with the reason their rows give. */
  gaps?: Record<string, string>;
  /**
   * Each plan's rate limit and block cap, and which plan each key of the run is on (src/profile/limits.ts): the
   * numbers "Per-plan rate limits exist" and "Plan caps apply" are held to, since the service shows none.
   */
  limits?: DeclaredLimits;
  /**
   * The deployment's public origin (the reference server's `publicBaseUrl`): the one its discovery files and
   * links may name when it is tested at an internal address. `--public-base-url` overrides it.
   */
  publicBaseUrl?: string;
  /**
   * The origins a deployment serves browsers from: with them, an Origin outside the list is known invalid and
   * the dns-rebinding rows judge it on a target that is not served on loopback.
   */
  allowedOrigins?: string[];
}

/** An http(s) origin without a path, as the reference server requires of its `publicBaseUrl`; else an error naming `where`. */
export function publicOrigin(value: string, where: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${where} is not a URL: "${value}"`);
  }
  if (!/^https?:$/.test(url.protocol) || url.pathname.replace(/\/$/, '') !== '' || url.search || url.hash) {
    throw new Error(`${where} must be an http(s) origin without a path, e.g. https://canvas.example.com (got "${value}")`);
  }
  return url.origin;
}

export function loadProfile(nameOrPath: string, root: string): Profile {
  const path = /[/\\]|\.json$/.test(nameOrPath) ? resolve(nameOrPath) : resolve(root, 'profiles', `${nameOrPath}.json`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new Error(`profile "${nameOrPath}" not found (looked for ${path})`);
  }
  const profile = JSON.parse(text) as Partial<Profile>;
  if (typeof profile.name !== 'string') throw new Error(`profile ${path}: "name" is required`);
  if (profile.kind !== 'service' && profile.kind !== 'generic') throw new Error(`profile ${path}: "kind" must be "service" or "generic"`);
  return {
    name: profile.name, kind: profile.kind, setup: profile.setup ?? [], streaming: profile.streaming ?? {}, calls: profile.calls ?? {},
    ...(profile.derive === true && { derive: true }), ...(profile.gaps && { gaps: profile.gaps }),
    ...(profile.limits !== undefined && { limits: validateLimits(profile.limits, `profile ${path}`) }),
    ...(profile.allowedOrigins !== undefined && { allowedOrigins: allowedOrigins(profile.allowedOrigins, `profile ${path}: "allowedOrigins"`) }),
    ...(profile.publicBaseUrl !== undefined && { publicBaseUrl: publicOrigin(String(profile.publicBaseUrl), `profile ${path}: "publicBaseUrl"`) }),
  };
}

function allowedOrigins(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) throw new Error(`${where} must be an array of origins, e.g. ["https://app.example.com"]`);
  return value.map((v) => publicOrigin(v, where));
}

/** Replaces `{{var}}` in string leaves. */
export function fill(value: unknown, vars: Record<string, unknown>): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{(\w+)\}\}$/.exec(value);
    if (whole) return vars[whole[1]!];
    return value.replace(/\{\{(\w+)\}\}/g, (_m, k: string) => String(vars[k]));
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, vars));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, vars)]));
  return value;
}
