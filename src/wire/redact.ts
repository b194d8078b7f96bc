/**
 * The wire client redacts as it records (keys never reach a record); the rules are the report kit's
 * scrubber (src/kit/scrub.ts), the one implementation of key redaction.
 */
import { redact } from '../kit/scrub.js';

export { redact, redactHeaders } from '../kit/scrub.js';

/**
 * Redacts `secrets` in every string of a record (an exchange, say), in place: a check that learns a secret after
 * the record was made (a variant of a key it sent, a key a reply returned) scrubs the records it already holds,
 * and records of requests still in flight stay the objects the wire client fills.
 */
export function redactInPlace(node: object, secrets: readonly string[]): void {
  const record = node as Record<string, unknown>;
  for (const [k, v] of Object.entries(record)) {
    if (typeof v === 'string') record[k] = redact(v, secrets);
    else if (v && typeof v === 'object') redactInPlace(v, secrets);
  }
}
