import type { TargetInfo } from '../target-info.js';

/** A target made ready for a run: what the suites need to reach it, and how to tear it down. */
export interface PreparedTarget {
  info: TargetInfo;
  close(): Promise<void>;
}

/** The target could not be reached or prepared: the CLI exits 2 with this message. */
export class TargetError extends Error {}
