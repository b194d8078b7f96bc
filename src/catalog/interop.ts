import type { Requirement } from './types.js';

export const interopRequirements: Requirement[] = [];
