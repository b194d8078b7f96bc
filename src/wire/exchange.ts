import type { BodyBytes } from './body-decoder.js';

/** One SSE event as it arrived: `at` is milliseconds since the request was sent. */
export interface SseEvent {
  at: number;
  event?: string;
  id?: string;
  data: string;
}

/** One HTTP exchange as the harness saw it, keys redacted. The evidence attached to a failed check. */
export interface Exchange {
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response?: {
    status: number;
    headers: Record<string, string>;
    body?: string;
    events?: SseEvent[];
    /** Present when decoding hid something: a leading BOM, bytes that are not UTF-8 (src/wire/body-decoder.ts). */
    bytes?: BodyBytes;
    /** False when the stream was still open when the harness stopped reading (timeout, or read up to the response). */
    closed?: boolean;
    /** 'response': the harness read the stream up to the response it needed (and a bound after it), not to its end. */
    readUntil?: 'response';
    /**
     * Milliseconds from the moment the request was sent (after any pacing) to the response headers and to
     * the end of the body; SSE events' `at` share that origin, so late headers cannot hide a buffered stream.
     */
    headersAt: number;
    endAt: number;
  };
  error?: string;
  startedAt: string;
}
