import type { Requirement } from './types.js';

export const discoveryRequirements: Requirement[] = [];
