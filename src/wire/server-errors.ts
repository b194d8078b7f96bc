import type { CheckRecord } from '../engine/verdict.js';
import type { Exchange } from './exchange.js';
import { currentCheck } from './key-sightings.js';
import { malformedOrUnexpected } from './malformed-message.js';

/** "never a 5xx": the row every malformed or unexpected message of the run is judged by. */
export const NO_5XX = 'jsonrpc-no-5xx';

/** One malformed or unexpected message the server answered with a 5xx. */
export interface ServerErrorSighting { by: string; fault: string; status: number; exchange: Exchange; /** The URL it went to, without its query (never reported). */ at: string }

/** Sightings kept with their exchange per run; the rest are counted. */
const KEPT = 10;

/**
 * The run-wide half of `jsonrpc-no-5xx`: every POST any check sends to the MCP endpoint whose body is a
 * malformed or unexpected JSON-RPC message (src/wire/malformed-message.ts), and the ones answered with a 5xx,
 * whichever check sent them and whatever it judged. The row's own checks (a property over envelopes, the
 * three tools/call shapes always sent) make sure such messages go out; this makes the verdict independent of
 * which check, or which seed, met the 5xx.
 */
export class ServerErrorLedger {
  readonly sightings: ServerErrorSighting[] = [];
  /** Sightings beyond KEPT, per URL. */
  readonly leftOut = new Map<string, number>();
  /** Malformed or unexpected messages sent to each URL, answered or not. */
  readonly sent = new Map<string, number>();

  note(url: string, method: string, body: string | undefined, status: number, exchange: Exchange): void {
    if (method !== 'POST' || body === undefined) return;
    const fault = malformedOrUnexpected(body);
    if (!fault) return;
    const at = url.split('?', 1)[0]!;
    this.sent.set(at, (this.sent.get(at) ?? 0) + 1);
    if (status < 500) return;
    if (this.sightings.filter((x) => x.at === at).length >= KEPT) {
      this.leftOut.set(at, (this.leftOut.get(at) ?? 0) + 1);
      return;
    }
    this.sightings.push({ by: currentCheck() ?? 'the run\'s own preparation', fault, status, exchange: JSON.parse(JSON.stringify(exchange)) as Exchange, at });
  }
}

export function serverErrorRecord(ledger: ServerErrorLedger, mcpUrl: string): CheckRecord {
  const endpoint = mcpUrl.split('?', 1)[0]!;
  const sightings = ledger.sightings.filter((s) => s.at === endpoint);
  const sent = ledger.sent.get(endpoint) ?? 0;
  const leftOut = ledger.leftOut.get(endpoint) ?? 0;
  const base = {
    name: 'no malformed or unexpected message any check of the run sent got a 5xx',
    // Judged by the run once every check has ended, but named after the row's suite, where its own checks live.
    suite: 'suites/jsonrpc.suite.ts > every malformed or unexpected message of the run (src/wire/server-errors.ts)',
    requirementIds: [NO_5XX],
    durationMs: 0,
  };
  if (sightings.length === 0) {
    if (sent === 0) return { ...base, status: 'not-testable', reason: 'the run sent no malformed or unexpected message to the MCP endpoint', observations: [], wire: [] };
    return { ...base, status: 'pass', observations: [`${sent} malformed or unexpected messages sent by the run's checks: none got a 5xx`], wire: [] };
  }
  const count = sightings.length + leftOut;
  const listed = sightings.slice(0, 5).map((s) => `${s.fault}, sent by ${s.by}: HTTP ${s.status}`);
  return {
    ...base,
    status: 'fail',
    message: `${count} of the ${sent} malformed or unexpected messages the run sent got a 5xx: ${listed.join(' | ')}${count > listed.length ? ` | and ${count - listed.length} more` : ''}`,
    expected: 'a 4xx or a JSON-RPC error, never a 5xx',
    actual: sightings.map((s) => ({ message: s.fault, by: s.by, status: s.status })),
    observations: leftOut > 0 ? [`${leftOut} more were answered with a 5xx; their exchanges are left out`] : [],
    wire: sightings.map((s) => s.exchange),
  };
}
