/**
 * The wire client redacts as it records (keys never reach a record); the rules are the report kit's
 * scrubber (src/kit/scrub.ts), the one implementation of key redaction.
 */
export { redact, redactHeaders, scrubKeyShapes } from '../kit/scrub.js';
