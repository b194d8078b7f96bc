/**
 * Time to first event and time to result of SSE replies under load, measured inside autocannon itself.
 *
 * autocannon times an SSE reply to the end of the stream, like every HTTP load tool. Its per-connection
 * client (lib/httpClient.js) also emits 'headers' and 'body' as the reply arrives, and keeps the reply in
 * flight (pipelinedRequests.peek(): its `startTime` and the body received so far). With pipelining 1 that
 * reply is the only one on the connection, so on every 'body' event the new bytes are fed to an SSE reader
 * and the first event and the result event are timed from the same start autocannon times the whole
 * response from. These are the real requests of the load, not a side sampler, so the numbers include the
 * queueing the load itself causes (and the load generator's own event-loop delay, as autocannon's do).
 */
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { createSseReader } from '../../src/wire/sse-reader.js';
import { HISTOGRAM_RANGE } from '../report/load-results.js';

export const STREAMING_TIMING_METHOD =
  'measured on the load requests themselves, through autocannon\'s per-connection client events (\'headers\', \'body\'): '
  + 'from the request being written to the arrival of the first SSE event, and of the event carrying the result';

/** What autocannon's client keeps of the reply in flight (lib/pipelinedRequestsQueue.js). */
interface InFlight {
  body: string;
  startTime: [number, number];
}

/** The parts of autocannon's Client used here; not in its type definitions. */
export interface AutocannonClient {
  on(event: string, listener: (...args: any[]) => void): unknown;
  pipelinedRequests?: { peek(): InFlight | undefined };
}

interface Pending {
  reply: InFlight;
  offset: number;
  reader: ReturnType<typeof createSseReader>;
  firstEventUs?: number;
  resultUs?: number;
}

const sinceUs = (start: [number, number]) => {
  const [s, ns] = process.hrtime(start);
  return Math.max(1, Math.round(s * 1e6 + ns / 1e3));
};

function contentTypeOf(info: unknown): string {
  // http-parser-js hands over the raw header list: [name, value, name, value, ...].
  const raw = (info as { headers?: unknown } | undefined)?.headers;
  if (!Array.isArray(raw)) return '';
  for (let i = 0; i + 1 < raw.length; i += 2) if (String(raw[i]).toLowerCase() === 'content-type') return String(raw[i + 1]);
  return '';
}

const isResult = (m: unknown) => typeof m === 'object' && m !== null && !('method' in m) && ('result' in m || 'error' in m);

export class StreamingTiming {
  readonly firstEvent: RecordableHistogram = createHistogram(HISTOGRAM_RANGE);
  readonly result: RecordableHistogram = createHistogram(HISTOGRAM_RANGE);

  /** Call from autocannon's `setupClient`: listens to one connection for the whole run. */
  attach(client: AutocannonClient): void {
    const queue = client.pipelinedRequests;
    if (!queue) throw new Error('autocannon client without pipelinedRequests: streaming timing needs autocannon 9');
    let pending: Pending | undefined;
    client.on('headers', (info: unknown) => {
      const reply = queue.peek();
      pending = undefined;
      if (!reply || !/^text\/event-stream\b/i.test(contentTypeOf(info))) return;
      const p: Pending = {
        reply,
        offset: 0,
        reader: createSseReader((event) => {
          const at = sinceUs(reply.startTime);
          p.firstEventUs ??= at;
          if (p.resultUs === undefined) {
            try {
              if (isResult(JSON.parse(event.data))) p.resultUs = at;
            } catch {
              // An unparseable event is the reply check's business.
            }
          }
        }),
      };
      pending = p;
    });
    client.on('body', () => {
      const p = pending;
      if (!p || queue.peek() !== p.reply) return;
      const fresh = p.reply.body.slice(p.offset);
      p.offset = p.reply.body.length;
      if (fresh) p.reader.feed(Buffer.from(fresh));
    });
    client.on('response', () => {
      const p = pending;
      pending = undefined;
      if (!p) return;
      if (p.firstEventUs !== undefined) this.firstEvent.record(p.firstEventUs);
      if (p.resultUs !== undefined) this.result.record(p.resultUs);
    });
    // A timeout or a broken connection drops the reply in flight.
    const drop = () => {
      pending = undefined;
    };
    client.on('timeout', drop);
    client.on('connError', drop);
  }
}
