import { CATALOG, selectRequirements } from '../catalog/index.js';
import type { Requirement } from '../catalog/types.js';
import { PACKAGE_ROOT } from '../kit/package-root.js';
import { loadProfile, type Profile } from '../profile/profile.js';
import { genericRows, type CheckDefinition } from './check.js';
import type { RunOptions } from './run-options.js';
import { TargetError } from '../targets/target.js';

/**
 * The rows a run with these options and checks judges (its --only, its profile's kind, its --clients), and the profile:
 * what a run plans from and `--list` prints. A profile that cannot be read, and a selection of no row, are
 * bad usage (TargetError: exit 2 with the reason), before anything is sent.
 */
export function selection(options: Pick<RunOptions, 'only' | 'profile' | 'clients'>, checks: readonly CheckDefinition[]): { profile: Profile; selected: (r: Requirement) => boolean; rows: Requirement[] } {
  let profile: Profile;
  try {
    profile = loadProfile(options.profile, PACKAGE_ROOT);
  } catch (err) {
    throw new TargetError((err as Error).message);
  }
  const selected = selectRequirements(options.only, profile.kind, options.clients, genericRows(checks));
  const rows = CATALOG.filter(selected);
  if (rows.length === 0) throw new TargetError(`${[options.only.length > 0 && `--only ${options.only.join(',')}`, options.clients && `--clients ${options.clients.join(',')}`].filter(Boolean).join(' with ')} selects no requirement`);
  return { profile, selected, rows };
}
