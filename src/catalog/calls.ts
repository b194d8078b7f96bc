import type { Requirement } from './types.js';

export const callsRequirements: Requirement[] = [];
