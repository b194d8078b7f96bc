import type { Requirement } from './types.js';

export const authRequirements: Requirement[] = [];
