/**
 * The wire client redacts as it records (keys never reach a record); the rules are the report kit's
 * scrubber (src/report-kit/scrub.ts), the one implementation of key redaction.
 */
export { redact, redactHeaders, scrubKeyShapes } from '../report-kit/scrub.js';
