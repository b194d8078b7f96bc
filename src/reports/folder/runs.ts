/**
 * What a report folder holds: the runs written into it, each by its own door (conformance results.json,
 * load load.json, probe probe.json, capacity capacity.json), read back and scrubbed again with the secrets of the run now writing.
 * A load.json or probe.json that is not one this version writes is left out (nothing to show); a
 * results.json that cannot be read is an error, since report.html is that run's page.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scrubDeep, type Secrets } from '../../kit/scrub.js';
import type { Results } from '../../engine/results.js';
import { LOAD_JSON, loadReportProblems } from '../../../load/report/load-json.js';
import type { LoadReport } from '../../../load/report/load-results.js';
import { isProbeResult, PROBE_JSON } from '../../../load/probe/probe-report.js';
import type { ProbeResult } from '../../../load/probe/probe-result.js';
import { CAPACITY_JSON, capacityReportProblems } from '../../../load/capacity/report/capacity-json.js';
import type { CapacityReport } from '../../../load/capacity/capacity-result.js';

export const RESULTS_JSON = 'results.json';

export interface FolderRuns {
  conformance?: Results;
  load?: LoadReport;
  probe?: ProbeResult;
  capacity?: CapacityReport;
}

function parsed(dir: string, file: string): unknown {
  const path = join(dir, file);
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

/** Parsed, or undefined when absent or unreadable. */
function parsedIfReadable(dir: string, file: string): unknown {
  try {
    return parsed(dir, file);
  } catch {
    return undefined;
  }
}

/** The runs in `dir`, scrubbed of `secrets`. Throws when its results.json exists but does not parse. */
export function readFolderRuns(dir: string, secrets: Secrets): FolderRuns {
  let conformance: unknown;
  try {
    conformance = parsed(dir, RESULTS_JSON);
  } catch (err) {
    throw new Error(`${join(dir, RESULTS_JSON)} cannot be read: ${(err as Error).message}`);
  }
  const load = parsedIfReadable(dir, LOAD_JSON);
  const probe = parsedIfReadable(dir, PROBE_JSON);
  const capacity = parsedIfReadable(dir, CAPACITY_JSON);
  return {
    ...(conformance !== undefined && { conformance: scrubDeep(conformance as Results, secrets) }),
    ...(load !== undefined && loadReportProblems(load).length === 0 && { load: scrubDeep(load as LoadReport, secrets) }),
    ...(isProbeResult(probe) && { probe: scrubDeep(probe, secrets) }),
    ...(capacity !== undefined && capacityReportProblems(capacity).length === 0 && { capacity: scrubDeep(capacity as CapacityReport, secrets) }),
  };
}
