import type { Requirement } from './types.js';

/** Rules only a sequence of calls shows: what a client observes across workspaces, keys and blocks. */
export const modelRequirements: Requirement[] = [];
