import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BodyBytes } from '../../src/wire/body-decoder.js';
import { createSseReader, type ParsedSseEvent } from '../../src/wire/sse-reader.js';

/**
 * The harness's SSE reading, searched: any valid event stream, written with LF, CR or CRLF line ends (mixed
 * within a stream too) and comments, split into chunks at any byte (inside a CRLF, inside a multi-byte
 * character), yields the same events as the stream written in one piece, and those are the events written.
 */

/** Field values: no line ends (a value cannot hold one), any other character, astral ones included. */
const value = fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, ''));
const eventArb = fc.record({
  data: fc.array(value, { minLength: 1, maxLength: 3 }),
  event: fc.option(value.filter((s) => s.length > 0), { nil: undefined }),
  id: fc.option(value.filter((s) => s.length > 0 && !s.includes('\0')), { nil: undefined }),
  comment: fc.option(value, { nil: undefined }),
});
type Written = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;
const EOL = fc.constantFrom('\n', '\r', '\r\n');

/** Writes the events with a line end chosen per line (a line's end is drawn from `eols`, cycling). */
function write(events: Written[], eols: string[]): string {
  let i = 0;
  let previous = '';
  // A CR followed by a line end starting with LF would read as one CRLF: write CRLF there instead.
  const eol = () => (previous = previous === '\r' && eols[i % eols.length] === '\n' ? (i++, '\r\n') : eols[i++ % eols.length]!);
  let out = '';
  for (const e of events) {
    if (e.comment !== undefined) out += `:${e.comment}${eol()}`;
    if (e.event !== undefined) out += `event: ${e.event}${eol()}`;
    if (e.id !== undefined) out += `id: ${e.id}${eol()}`;
    for (const line of e.data) out += `data: ${line}${eol()}`;
    out += eol();
  }
  return out;
}

/** A leading space is removed once from a field value (WHATWG §9.2.6), so a value starting with one keeps the rest. */
function expected(e: Written): ParsedSseEvent {
  return { data: e.data.join('\n'), ...(e.event !== undefined && { event: e.event }), ...(e.id !== undefined && { id: e.id }) };
}

function readAll(bytes: Uint8Array, cuts: number[]): { events: ParsedSseEvent[]; bytes: BodyBytes } {
  const events: ParsedSseEvent[] = [];
  const reader = createSseReader((e) => events.push(e));
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    reader.feed(bytes.subarray(from, cut));
    from = cut;
  }
  reader.feed(bytes.subarray(from));
  reader.end();
  return { events, bytes: reader.bytes() };
}

const read = (bytes: Uint8Array, cuts: number[]): ParsedSseEvent[] => readAll(bytes, cuts).events;
const BOM = Uint8Array.of(0xef, 0xbb, 0xbf);
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));

describe('SSE reader', () => {
  it('property: any chunking of any valid stream yields the events written', () => {
    fc.assert(fc.property(fc.array(eventArb, { minLength: 1, maxLength: 6 }), fc.array(EOL, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 40 }), (events, eols, cuts) => {
      const bytes = new TextEncoder().encode(write(events, eols));
      const whole = read(bytes, []);
      expect(read(bytes, cuts)).toEqual(whole);
      expect(whole).toEqual(events.map(expected));
    }), { numRuns: 2000 });
  });

  it('property: a stream of UTF-8 without BOM is told so; one leading BOM is recorded and read past, at any chunking', () => {
    fc.assert(fc.property(fc.array(eventArb, { minLength: 1, maxLength: 4 }), EOL, fc.array(fc.nat(), { maxLength: 20 }), (events, eol, cuts) => {
      const bytes = new TextEncoder().encode(write(events, [eol]));
      expect(readAll(bytes, cuts).bytes).toEqual({ bom: false, utf8: true });
      const withBom = readAll(concat(BOM, bytes), cuts);
      expect(withBom.bytes).toEqual({ bom: true, utf8: true });
      expect(withBom.events).toEqual(events.map(expected));
    }), { numRuns: 300 });
  });

  it('bytes that are not UTF-8 are told, wherever the chunks split them; the events are still read (with U+FFFD)', () => {
    // "é" in Latin-1 (0xE9) followed by ASCII, and a UTF-8 sequence cut short at the end of the stream.
    const latin1 = concat(new TextEncoder().encode('data: {"name":"caf'), Uint8Array.of(0xe9), new TextEncoder().encode('"}\n\n'));
    for (let cut = 0; cut <= latin1.length; cut++) {
      const r = readAll(latin1, [cut]);
      expect(r.bytes, `cut at ${cut}`).toEqual({ bom: false, utf8: false });
      expect(r.events).toEqual([{ data: '{"name":"caf\uFFFD"}' }]);
    }
    const truncated = concat(new TextEncoder().encode('data: {}\n\n'), Uint8Array.of(0xe2, 0x82));
    expect(readAll(truncated, [3]).bytes).toEqual({ bom: false, utf8: false });
    // A second BOM is no stream-opening BOM: it stays in the text, where the rows that judge data see it.
    const twice = readAll(concat(BOM, new TextEncoder().encode('data: '), BOM, new TextEncoder().encode('{}\n\n')), [4]);
    expect(twice.bytes).toEqual({ bom: true, utf8: true });
    expect(twice.events).toEqual([{ data: '\uFEFF{}' }]);
  });

  it('property: byte-at-a-time reading equals one-piece reading', () => {
    fc.assert(fc.property(fc.array(eventArb, { minLength: 1, maxLength: 4 }), EOL, (events, eol) => {
      const bytes = new TextEncoder().encode(write(events, [eol]));
      expect(read(bytes, Array.from(bytes, (_, i) => i))).toEqual(events.map(expected));
    }), { numRuns: 500 });
  });

  it('the property can fail: a reader that drops the CR of a CRLF split across chunks is caught', () => {
    // A naive reader splitting each chunk on /\r\n|\r|\n/ sees "\r" then "\n" as two line ends: an empty
    // line in between dispatches the event early, which the property notices.
    const naive = (bytes: Uint8Array, cuts: number[]): string[] => {
      const text = new TextDecoder().decode(bytes);
      const sorted = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
      const lines: string[] = [];
      let from = 0;
      for (const cut of [...sorted, text.length]) {
        lines.push(...text.slice(from, cut).split(/\r\n|\r|\n/));
        from = cut;
      }
      return lines;
    };
    const details = fc.check(fc.property(fc.array(eventArb, { minLength: 1, maxLength: 3 }), fc.array(fc.nat(), { maxLength: 20 }), (events, cuts) => {
      const bytes = new TextEncoder().encode(write(events, ['\r\n']));
      expect(naive(bytes, cuts)).toEqual(naive(bytes, []));
    }), { seed: 1, numRuns: 500 });
    expect(details.failed).toBe(true);
  });
});
