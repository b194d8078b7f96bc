import { createParser } from 'eventsource-parser';
import { createBodyDecoder, type BodyBytes } from './body-decoder.js';

export interface ParsedSseEvent { data: string; event?: string; id?: string }

/**
 * Reads an event stream from byte chunks as they arrive: UTF-8 decoded across chunk boundaries (a
 * character may be split between chunks), then parsed by eventsource-parser (WHATWG HTML §9.2.6: LF, CR
 * and CRLF line ends, comments, multi-line data). `feed` returns the decoded text of the chunk. `bytes`
 * tells what decoding hid: whether one BOM opened the stream (the SSE grammar allows it, `stream = [ bom ]
 * *event`, and it is not given to the parser) and whether every byte was UTF-8.
 */
export function createSseReader(onEvent: (event: ParsedSseEvent) => void): { feed(chunk: Uint8Array): string; end(): string; bytes(): BodyBytes } {
  const decoder = createBodyDecoder();
  const parser = createParser({ onEvent: (e) => onEvent({ data: e.data, ...(e.event && { event: e.event }), ...(e.id && { id: e.id }) }) });
  let last = '';
  return {
    feed(chunk) {
      const text = decoder.decode(chunk);
      parser.feed(text);
      if (text) last = text.at(-1)!;
      return text;
    },
    end() {
      const text = decoder.decode();
      parser.feed(text);
      if (text) last = text.at(-1)!;
      // The stream is over, so a trailing CR was a whole line end; the parser still waits to see whether an
      // LF follows, and would drop the last event (found by the chunking property). An LF completes it as CRLF.
      if (last === '\r') parser.feed('\n');
      return text;
    },
    bytes: () => decoder.facts(),
  };
}
