/**
 * What decoding a body as text would hide, kept from the raw bytes: a leading byte order mark (U+FEFF) and
 * bytes that are not UTF-8. A plain TextDecoder drops the first and turns the second into U+FFFD, so a
 * service that sends either would look like one that sends neither (issue 24).
 */
export interface BodyBytes {
  /** The body (or event stream) began with U+FEFF. */
  bom: boolean;
  /** Every byte sequence was valid UTF-8 (a `fatal` decoder accepted the whole body). */
  utf8: boolean;
}

/**
 * Decodes a body chunk by chunk (a character may be split between chunks) as UTF-8 with replacement, as
 * before, while a second, fatal decoder validates the same bytes. A leading BOM is removed from the text
 * (RFC 8259 §8.1: parsers "MAY ignore the presence of a byte order mark"; the SSE decode drops one) and
 * recorded, so the rows that forbid it can judge it and every other row reads the text as always.
 */
export function createBodyDecoder(): { decode(chunk?: Uint8Array): string; facts(): BodyBytes } {
  const text = new TextDecoder('utf-8', { ignoreBOM: true });
  const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const facts: BodyBytes = { bom: false, utf8: true };
  let started = false;
  const validate = (chunk: Uint8Array | undefined) => {
    if (!facts.utf8) return;
    try {
      if (chunk) strict.decode(chunk, { stream: true });
      else strict.decode();
    } catch {
      facts.utf8 = false;
    }
  };
  return {
    /** The text of `chunk`; without a chunk, the end of the body (a truncated character is then invalid). */
    decode(chunk) {
      validate(chunk);
      let out = chunk ? text.decode(chunk, { stream: true }) : text.decode();
      if (!started && out.length > 0) {
        started = true;
        if (out.charCodeAt(0) === 0xfeff) {
          facts.bom = true;
          out = out.slice(1);
        }
      }
      return out;
    },
    facts: () => ({ ...facts }),
  };
}

/** `text` without one leading U+FEFF: how a JSON text is parsed when the BOM is judged elsewhere. */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
