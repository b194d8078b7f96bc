import type { Requirement } from './types.js';

export const streamingRequirements: Requirement[] = [];
