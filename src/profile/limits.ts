import { Ajv, type ValidateFunction } from 'ajv';
import { resolveConfig } from '../../service/reference-server/config.js';
import { CONFORMANCE_CONFIG } from '../../service/reference-server/conformance-config.js';

/**
 * Declared limits. The service shows no numbers ("Numeric values of rate limits and caps: not shown"), so
 * "Per-plan rate limits exist" and "Plan caps apply to block authoring" can only be held to numbers the
 * user declares: in the profile's `limits`, with `--limits` / `--other-limits`, or, on the targets the
 * harness starts itself, the configuration its reference server runs with.
 */
export interface DeclaredPlan {
  /** Sustained requests per second per key. */
  ratePerSecond?: number;
  /** Requests a key may send at once after being idle. */
  burst?: number;
  /** Most blocks one workspace on this plan may hold. */
  maxBlocks?: number;
}

export interface DeclaredLimits {
  /** The plan of the run's key given with `--api-key`. */
  keyPlan?: string;
  /** The plan of `--other-key`. */
  otherKeyPlan?: string;
  /** The plan of workspaces the bootstrap endpoint creates (the keys the run bootstraps). */
  bootstrapPlan?: string;
  plans: Record<string, DeclaredPlan>;
}

/**
 * The limits of one run, as the suites read them: `keyPlan` / `otherKeyPlan` name the plan of the keys the run
 * actually holds (the bootstrap plan when the run bootstrapped them), `sources` say where the numbers came from.
 */
export interface RunLimits extends DeclaredLimits {
  sources: string[];
}

const PLAN_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ratePerSecond: { type: 'number', exclusiveMinimum: 0 },
    burst: { type: 'integer', minimum: 1 },
    maxBlocks: { type: 'integer', minimum: 0 },
  },
} as const;

const LIMITS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['plans'],
  properties: {
    keyPlan: { type: 'string', minLength: 1 },
    otherKeyPlan: { type: 'string', minLength: 1 },
    bootstrapPlan: { type: 'string', minLength: 1 },
    plans: { type: 'object', additionalProperties: PLAN_SCHEMA },
  },
} as const;

/** Compiled on first use: a command that declares no limits need not pay for it at start. */
let compiled: ValidateFunction<DeclaredLimits> | undefined;
// validateSchema off: LIMITS_SCHEMA is this file's constant, and checking it against draft-07's meta-schema took
// some 40 ms of every run's start.
const validate = (value: unknown) => (compiled ??= new Ajv({ allErrors: true, validateSchema: false }).compile<DeclaredLimits>(LIMITS_SCHEMA))(value);
const validationErrors = () => compiled?.errors;

/** A profile's `limits`, checked against its schema; every plan a key is said to be on must be declared. */
export function validateLimits(value: unknown, where: string): DeclaredLimits {
  if (!validate(value)) {
    const why = (validationErrors() ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`).join('; ');
    throw new Error(`${where}: "limits" is invalid: ${why}`);
  }
  for (const field of ['keyPlan', 'otherKeyPlan', 'bootstrapPlan'] as const) {
    const plan = value[field];
    if (plan !== undefined && !value.plans[plan]) throw new Error(`${where}: "limits.${field}" names plan "${plan}", which "limits.plans" does not declare`);
  }
  return value;
}

/** `--limits` / `--other-limits`: `rate=<req/s>,burst=<n>,cap=<blocks>` (any of them) and an optional `plan=<name>`. */
export type LimitsOption = DeclaredPlan & { plan?: string };

const OPTION_KEYS: Record<string, keyof LimitsOption> = { rate: 'ratePerSecond', burst: 'burst', cap: 'maxBlocks', plan: 'plan' };

/** Parses a `--limits` value; throws with the reason (the CLI exits 2 with it). */
export function parseLimitsOption(value: string, option: string): LimitsOption {
  const out: LimitsOption = {};
  const example = `e.g. ${option} rate=20,burst=40,cap=20`;
  for (const part of value.split(',').map((p) => p.trim())) {
    const m = /^([a-z]+)=(.+)$/.exec(part);
    const field = m ? OPTION_KEYS[m[1]!] : undefined;
    if (!m || !field) throw new Error(`${option} takes rate=<req/s>, burst=<n>, cap=<blocks> and plan=<name>, comma-separated (${example}); got "${part}"`);
    if (out[field] !== undefined) throw new Error(`${option} gives ${m[1]} twice`);
    const raw = m[2]!;
    if (field === 'plan') {
      if (!/^[\w.-]{1,64}$/.test(raw)) throw new Error(`${option} plan= must be a name of letters, digits, ".", "_" or "-" (got "${raw}")`);
      out.plan = raw;
      continue;
    }
    const n = Number(raw);
    const ok = field === 'ratePerSecond' ? Number.isFinite(n) && n > 0 : Number.isSafeInteger(n) && n >= (field === 'burst' ? 1 : 0) && /^\d+$/.test(raw);
    if (!ok) throw new Error(`${option} ${m[1]}= must be ${field === 'ratePerSecond' ? 'a number above 0' : field === 'burst' ? 'an integer of at least 1' : 'a non-negative integer'} (got "${raw}")`);
    out[field] = n;
  }
  if (out.ratePerSecond === undefined && out.burst === undefined && out.maxBlocks === undefined) throw new Error(`${option} declares no limit (${example})`);
  return out;
}

/**
 * The limits in force on the targets the harness starts itself (embedded, container, stdio without
 * --base-url): the reference server's defaults with CONFORMANCE_CONFIG over them. A mutant's own `config` is
 * the broken service, never the declaration.
 */
export function referenceLimitsInForce(): DeclaredLimits {
  const config = resolveConfig(CONFORMANCE_CONFIG);
  const plans = Object.fromEntries(Object.entries(config.plans).map(([name, p]) => [name, { ratePerSecond: p.ratePerSecond, burst: p.burst, maxBlocks: p.maxBlocks }]));
  return { bootstrapPlan: config.bootstrapPlan, plans };
}

/**
 * The run's limits: the limits in force on a target the harness starts (they win over a profile, which may
 * describe the reference with its defaults), else the profile's; then `--limits` for the run's key and
 * `--other-limits` for `--other-key` over both. A bootstrapped key is on the bootstrap plan; a key the user
 * gave is on the plan declared for it, if any.
 */
export function resolveRunLimits(input: {
  profile?: DeclaredLimits; profileName: string; inForce?: DeclaredLimits; inForceName?: string;
  key?: LimitsOption; other?: LimitsOption; keyGiven: boolean; otherGiven: boolean;
}): RunLimits | undefined {
  const base = input.inForce ?? input.profile;
  const sources: string[] = [];
  if (input.inForce) sources.push(input.inForceName ?? 'the limits the harness\'s own server runs with');
  else if (input.profile) sources.push(`profile ${input.profileName}`);
  const limits: RunLimits = { plans: structuredClone(base?.plans ?? {}), sources };
  if (base?.bootstrapPlan) limits.bootstrapPlan = base.bootstrapPlan;
  const keyPlan = input.keyGiven ? base?.keyPlan : limits.bootstrapPlan;
  const otherKeyPlan = input.otherGiven ? base?.otherKeyPlan : limits.bootstrapPlan;
  if (keyPlan) limits.keyPlan = keyPlan;
  if (otherKeyPlan) limits.otherKeyPlan = otherKeyPlan;
  const apply = (option: LimitsOption, field: 'keyPlan' | 'otherKeyPlan', flag: string, fallback: string) => {
    const { plan, ...values } = option;
    const name = plan ?? limits[field] ?? fallback;
    limits.plans[name] = { ...limits.plans[name], ...values };
    limits[field] = name;
    sources.push(flag);
  };
  if (input.key) {
    apply(input.key, 'keyPlan', '--limits', input.keyGiven ? 'plan of --api-key' : 'bootstrap plan');
    // Without --api-key the run's key was bootstrapped: --limits then declares the bootstrap plan.
    if (!input.keyGiven) {
      limits.bootstrapPlan = limits.keyPlan;
      if (!input.otherGiven) limits.otherKeyPlan = limits.keyPlan;
    }
  }
  if (input.other) apply(input.other, 'otherKeyPlan', '--other-limits', 'plan of --other-key');
  return sources.length > 0 ? limits : undefined;
}

export const BURST_FACTOR = 1.5;
export const BURST_SLACK = 10;

/**
 * The most requests a key of plan `p` may get served in a burst lasting `elapsedMs` before a 429 must have
 * come: its burst with half again as margin, plus what the bucket refills meanwhile, plus a few requests
 * for timing. A token bucket serves at most burst + rate x elapsed.
 */
export function burstBound(p: { ratePerSecond: number; burst: number }, elapsedMs: number): number {
  return Math.floor(BURST_FACTOR * p.burst + (p.ratePerSecond * elapsedMs) / 1000 + BURST_SLACK);
}

/** The bound with its computation, as rows show it. */
export function describeBurstBound(p: { ratePerSecond: number; burst: number }, elapsedMs: number): string {
  return `${BURST_FACTOR} x burst ${p.burst} + ${p.ratePerSecond}/s x ${(elapsedMs / 1000).toFixed(2)} s + ${BURST_SLACK} = ${burstBound(p, elapsedMs)}`;
}

/** The most blocks a workspace with cap `maxBlocks` may end up holding: a tenth more and two for concurrent creates. */
export function capBound(maxBlocks: number): number {
  return maxBlocks + Math.ceil(maxBlocks / 10) + 2;
}

export function describeCapBound(maxBlocks: number): string {
  return `cap ${maxBlocks} + ${Math.ceil(maxBlocks / 10)} (a tenth) + 2 = ${capBound(maxBlocks)}`;
}

/** `plan "trial": 20/s, burst 40, cap 20`. */
export function describePlan(name: string, p: DeclaredPlan | undefined): string {
  if (!p) return `plan "${name}": nothing declared`;
  const parts = [p.ratePerSecond !== undefined && `${p.ratePerSecond}/s`, p.burst !== undefined && `burst ${p.burst}`, p.maxBlocks !== undefined && `cap ${p.maxBlocks}`].filter(Boolean);
  return `plan "${name}": ${parts.join(', ') || 'nothing declared'}`;
}

/** A plan's rate and burst when both are declared. */
export function rateOf(limits: RunLimits | undefined, plan: string | undefined): { ratePerSecond: number; burst: number } | undefined {
  const p = plan ? limits?.plans[plan] : undefined;
  return p?.ratePerSecond !== undefined && p.burst !== undefined ? { ratePerSecond: p.ratePerSecond, burst: p.burst } : undefined;
}
