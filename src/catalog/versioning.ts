import type { Requirement } from './types.js';

export const versioningRequirements: Requirement[] = [];
