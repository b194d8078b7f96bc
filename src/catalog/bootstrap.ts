import type { Requirement } from './types.js';

export const bootstrapRequirements: Requirement[] = [];
