import type { Requirement } from './types.js';

export const jsonrpcRequirements: Requirement[] = [];
