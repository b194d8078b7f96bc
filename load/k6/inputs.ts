/**
 * The k6 scripts' inputs, read only from environment variables (`__ENV`) so that the same script runs
 * unchanged on a laptop, in CI, in k6-operator runners and in Grafana Cloud k6. A bad value stops the script
 * at init, a missing target or key in setup() (k6 exits 107 either way), before any request.
 *
 *   MCP_BASE_URL     the service's base URL (required), e.g. http://127.0.0.1:8080
 *   MCP_API_KEY      a live key (required). Never printed or written anywhere.
 *   LOAD_SCENARIO    a scenario name, a comma-separated list, or `smoke` (default tools-list)
 *   LOAD_RATE        arrival rate per scenario, requests per second (default 100; smoke 10)
 *   LOAD_DURATION    seconds of load (default 10; smoke 3)
 *   LOAD_VUS         VUs pre-allocated per scenario (default: see scenarioVus)
 *   LOAD_MAX_VUS     VU ceiling per scenario (default: see scenarioVus)
 *   LOAD_P99_MS      threshold: p99 of each scenario's request duration, ms (default 2000)
 *   LOAD_TIMEOUT_MS  per-request timeout, ms (default 10000)
 *   SUMMARY_DIR      where handleSummary writes its files (default: the working directory)
 *   LOAD_TARGET_KIND a label for the report (embedded, url, container; default url)
 */
import { SCENARIOS, SMOKE_SCENARIOS, scenarioByName, type Scenario } from '../scenarios.ts';

export interface Inputs {
  baseUrl: string;
  apiKey: string;
  smoke: boolean;
  scenarios: Scenario[];
  ratePerScenario: number;
  durationS: number;
  /** Explicit VU counts per scenario; otherwise scenarioVus sizes them. */
  vus?: number;
  maxVus?: number;
  p99Ms: number;
  timeoutMs: number;
  summaryDir: string;
  targetKind: string;
}

type Env = Record<string, string | undefined>;

function positive(env: Env, name: string, fallback: number, integer: boolean): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`${name} must be a positive ${integer ? 'integer' : 'number'} (got "${raw}")`);
  }
  return value;
}

export function readInputs(env: Env): Inputs {
  // Target and key are checked in setup() (checkTarget), not here: `k6 archive` runs this init code too,
  // and an archive must not need, nor carry, a key.
  const baseUrl = (env.MCP_BASE_URL ?? '').replace(/\/$/, '');
  const apiKey = env.MCP_API_KEY ?? '';
  const selection = env.LOAD_SCENARIO || 'tools-list';
  const smoke = selection === 'smoke';
  const names = smoke ? [...SMOKE_SCENARIOS] : selection.split(',').map((s) => s.trim()).filter(Boolean);
  const scenarios = names.map((name) => {
    const scenario = scenarioByName(name);
    if (!scenario) throw new Error(`LOAD_SCENARIO: unknown scenario "${name}" (known: smoke, ${SCENARIOS.map((s) => s.name).join(', ')})`);
    return scenario;
  });
  if (scenarios.length === 0 || new Set(names).size !== names.length) throw new Error('LOAD_SCENARIO must name each scenario once');
  const ratePerScenario = positive(env, 'LOAD_RATE', smoke ? 10 : 100, false);
  const durationS = positive(env, 'LOAD_DURATION', smoke ? 3 : 10, false);
  const vus = positive(env, 'LOAD_VUS', 0, true) || undefined;
  const maxVus = positive(env, 'LOAD_MAX_VUS', 0, true) || undefined;
  if (vus !== undefined && maxVus !== undefined && maxVus < vus) throw new Error(`LOAD_MAX_VUS (${maxVus}) must be at least LOAD_VUS (${vus})`);
  return {
    baseUrl,
    apiKey,
    smoke,
    scenarios,
    ratePerScenario,
    durationS,
    ...(vus !== undefined && { vus }),
    ...(maxVus !== undefined && { maxVus }),
    p99Ms: positive(env, 'LOAD_P99_MS', 2000, false),
    timeoutMs: positive(env, 'LOAD_TIMEOUT_MS', 10_000, true),
    summaryDir: (env.SUMMARY_DIR ?? '').replace(/\/$/, ''),
    targetKind: env.LOAD_TARGET_KIND || 'url',
  };
}

/** setup(): the run needs a target and a key (an archive does not). The key is never echoed. */
export function checkTarget(inputs: Inputs): void {
  if (!/^https?:\/\/[^/]/.test(inputs.baseUrl)) throw new Error(`MCP_BASE_URL must be an http(s) URL (got "${inputs.baseUrl}")`);
  if (inputs.apiKey === '') throw new Error('MCP_API_KEY is required');
}

/** Default VUs of all scenarios together stay under this (the load commands' connection cap). */
const VU_BUDGET = 1000;

/**
 * VUs of one k6 scenario. An open model needs rate x latency requests in flight, each holding a VU; k6
 * drops an iteration when no VU is free (and starting one beyond the pre-allocated ones takes time). A JSON
 * reply takes milliseconds, a streaming reply a few hundred (the reference: 4 steps of 75 ms): pre-allocate
 * 1.5x the expected in-flight count and allow 10x.
 */
export function scenarioVus(inputs: Inputs, scenario: Scenario): { vus: number; maxVus: number } {
  const latencyS = scenario.requests.some((r) => r.streaming) ? 0.5 : 0.05;
  const ceiling = Math.max(2, Math.floor(VU_BUDGET / inputs.scenarios.length));
  const inFlight = inputs.ratePerScenario * latencyS;
  const vus = inputs.vus ?? Math.min(inputs.maxVus ?? ceiling, ceiling, Math.max(2, Math.ceil(inFlight * 1.5)));
  const maxVus = inputs.maxVus ?? Math.max(vus, Math.min(ceiling, Math.ceil(inFlight * 10)));
  return { vus, maxVus };
}
