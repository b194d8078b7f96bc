/**
 * The options the harness's commands share (conformance, load, load:k6, probe:rate-limit), read and
 * checked once here: the target kind and its base URL, keys from an option or the environment, mutant
 * names, seed, timeout. Each reader throws a UsageError (exit 2 through main()).
 */
import { HOSTILE_MUTANTS, HTTPS_MUTANTS, LOAD_MUTANTS, MUTANTS } from '../../service/mutants/index.js';
import { enumOption, numberOption, secretOption, urlOption, UsageError } from '../kit/options.js';
import { nearestNames } from '../kit/nearest.js';

export type TargetKind = 'embedded' | 'url' | 'container' | 'stdio';

export interface TargetSpec<K extends TargetKind> {
  /** The kinds this command accepts. */
  kinds: readonly K[];
  /** The kinds that take --base-url (url needs it; the others start a server of their own). */
  baseUrlKinds: readonly K[];
  /** The command's other option that names a url target's endpoint (conformance's --mcp-url). */
  endpointOption?: { name: string; value: string | undefined };
}

/** --target and --base-url: the kind (default url when a URL is given, else embedded) and the checked URL. */
export function targetOption<K extends TargetKind>(values: { target?: string; 'base-url'?: string }, spec: TargetSpec<K>): { kind: K; baseUrl?: string } {
  const endpoint = spec.endpointOption;
  const given = enumOption('--target', values.target, spec.kinds);
  const kind = given ?? ((values['base-url'] || endpoint?.value ? 'url' : 'embedded') as K);
  const baseUrl = urlOption('--base-url', values['base-url']);
  if (kind === 'url' && !baseUrl && !endpoint?.value) throw new UsageError(`--target url needs --base-url${endpoint ? ` or ${endpoint.name}` : ''}`);
  if (baseUrl && !spec.baseUrlKinds.includes(kind)) throw new UsageError(`--target ${kind} runs its own server: it takes no --base-url`);
  return { kind, ...(baseUrl !== undefined && { baseUrl }) };
}

/** A key's option and the environment variable it falls back to (better: a command line shows in `ps`). */
export const KEY_ENV = {
  'api-key': 'MCP_API_KEY',
  'other-key': 'MCP_OTHER_KEY',
  'revoked-key': 'MCP_REVOKED_KEY',
  'sibling-key': 'MCP_SIBLING_KEY',
} as const;

/** A key from --<name> or its environment variable (empty counts as unset). Never printed. */
export function keyOption(values: Partial<Record<keyof typeof KEY_ENV, string>>, name: keyof typeof KEY_ENV): string | undefined {
  return secretOption(`--${name}`, values[name], KEY_ENV[name]);
}

/** Where a key came from, for messages: its option when given, else its environment variable (the key itself never). */
export function keySource(values: Partial<Record<keyof typeof KEY_ENV, string>>, name: keyof typeof KEY_ENV): string {
  return values[name] !== undefined ? `--${name}` : KEY_ENV[name];
}

/**
 * Which mutants a command runs: conformance every one (service/mutants `mutant()`), the load commands
 * the reference's conformance and load faults.
 */
export type MutantFamily = 'conformance' | 'load';

function mutantNames(family: MutantFamily): string[] {
  return (family === 'conformance' ? [...MUTANTS, ...LOAD_MUTANTS, ...HOSTILE_MUTANTS, ...HTTPS_MUTANTS] : [...MUTANTS, ...LOAD_MUTANTS]).map((m) => m.name);
}

/**
 * --mutant: embedded target only, and a known name. An unknown one names the nearest known ones, not all of
 * them (two hundred names made an error of 11 kB).
 */
export function mutantOption(raw: string | undefined, kind: TargetKind, family: MutantFamily): string | undefined {
  if (raw === undefined) return undefined;
  if (kind !== 'embedded') throw new UsageError('--mutant works with the embedded target only');
  const known = mutantNames(family);
  if (!known.includes(raw)) throw new UsageError(`unknown mutant "${raw}"; the nearest of the ${known.length} known: ${nearestNames(raw, known).join(', ')} (all of them: service/mutants/ in the repository)`);
  return raw;
}

/** --seed: a whole number; not given, a random one (printed by the command so the run can be replayed). */
export function seedOption(raw: string | undefined): { seed: number; given: boolean } {
  const seed = numberOption('--seed', raw, { integer: true, min: 0, max: Number.MAX_SAFE_INTEGER });
  return seed === undefined ? { seed: Math.floor(Math.random() * 2 ** 31), given: false } : { seed, given: true };
}

/** --timeout: the per-request deadline. */
export function timeoutOption(raw: string | undefined, fallbackMs = 10_000): number {
  return numberOption('--timeout', raw, { integer: true, min: 100, max: 600_000, unit: 'milliseconds', fallback: fallbackMs });
}
