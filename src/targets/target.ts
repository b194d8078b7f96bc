import type { TargetInfo } from './target-info.js';

/** A target made ready for a run: what the suites need to reach it, and how to tear it down. */
export interface PreparedTarget {
  info: TargetInfo;
  close(): Promise<void>;
  /** Bootstrap requests the preparation sent (its keys), paid from the run's bootstrap budget. */
  bootstrapsUsed?: number;
}

/** The target could not be reached or prepared: the CLI exits 2 with this message. */
export class TargetError extends Error {}
