import { reportSchema } from '../helpers/report-schema.js';

/** load.json matches reports/load.schema.json, and documents every field it holds. */
export const { expectValid: expectValidLoad } = reportSchema('reports/load.schema.json');
