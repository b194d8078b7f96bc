import { reportSchema } from './report-schema.js';

/** reports/results.schema.json: `expectValid` checks a results.json against it and its closed copy. */
export const { validate, expectValid } = reportSchema('reports/results.schema.json');
