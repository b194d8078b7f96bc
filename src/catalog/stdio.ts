import type { Requirement } from './types.js';

export const stdioRequirements: Requirement[] = [];
