import type { Requirement } from './types.js';

export const statelessRequirements: Requirement[] = [];
