import type { Requirement } from './types.js';

/**
 * Per-plan rate limits (service.md §Limits): that they exist within the limits the user declares (the service
 * shows no numbers), that plans differ as declared, and their signalling as far as HTTP defines it.
 */
export const rateLimitRequirements: Requirement[] = [
  {
    id: 'rate-limit-exists',
    group: 'rate-limit',
    level: 'MUST',
    source: 'service.md §Limits; declared limits (profile "limits", --limits)',
    text: 'Per-plan rate limits exist. (A burst on a key of a declared plan meets a 429 within 1.5 x burst + rate x elapsed seconds + 10 requests.)',
  },
  {
    id: 'rate-limit-plans-differ',
    group: 'rate-limit',
    level: 'SHOULD',
    source: 'service.md §Limits; declared limits of two plans (profile "limits", --limits and --other-limits)',
    text: 'Per-plan rate limits exist. (Keys on two plans declared with different limits are throttled in the declared order: the key of the lower plan within its bound, the key of the higher plan not before that bound.)',
    levelReason: 'The sentence says each plan has limits of its own, not that two plans\' limits differ, and the order compared comes from the user\'s declaration (which may be the one at fault), so a mismatch is a warning.',
  },
  {
    // RFC 6585's one sentence on a 429's reply holds a SHOULD (details) and a MAY (Retry-After): a row each,
    // and a third for the grammar of a Retry-After that is sent.
    id: 'rate-limit-429-explained',
    group: 'rate-limit',
    level: 'SHOULD',
    source: 'service.md §Limits ("Per-plan rate limits exist"); RFC 6585 §4 (RATE-03)',
    text: 'The response representations SHOULD include details explaining the condition. (A 429 with an empty body explains nothing.)',
  },
  {
    id: 'rate-limit-retry-after',
    group: 'rate-limit',
    level: 'MAY',
    source: 'service.md §Limits ("Per-plan rate limits exist"); RFC 6585 §4 (RATE-03)',
    text: 'The response representations ... MAY include a Retry-After header indicating how long to wait before making a new request.',
  },
  {
    id: 'rate-limit-retry-after-syntax',
    group: 'rate-limit',
    level: 'MUST',
    source: 'RFC 9110 §2.2, §10.2.3 (RATE-05)',
    text: 'A sender MUST NOT generate protocol elements that do not match the grammar defined by the corresponding ABNF rules. (Retry-After = HTTP-date / delay-seconds: a 429 that carries Retry-After carries one of the two.)',
  },
  {
    id: 'rate-limit-retry-after-honest',
    group: 'rate-limit',
    level: 'SHOULD',
    source: 'RFC 9110 §10.2.3; draft-ietf-httpapi-ratelimit-headers-11 §6 (RATE-08)',
    text: 'Servers send the "Retry-After" header field to indicate how long the user agent ought to wait before making a follow-up request.',
    levelReason: 'RFC 9110 says what Retry-After is for and demands no accuracy, so a wait that does not suffice misleads a client (a warning) without breaking a stated rule.',
  },
];
