import type { Requirement } from './types.js';

export const toolsRequirements: Requirement[] = [];
