/**
 * Splits a complete `text/event-stream` body into the JSON messages of its `data:` fields. k6 reads an SSE
 * reply whole and cannot load npm packages (no eventsource-parser here), so this is a small parser of the
 * WHATWG event-stream format, enough for a finished stream.
 */

/**
 * The `data` of every dispatched event, in order.
 * "Lines must be separated by either a U+000D CARRIAGE RETURN U+000A LINE FEED (CRLF) character pair, a single
 * U+000A LINE FEED (LF) character, or a single U+000D CARRIAGE RETURN (CR) character." "If the line is empty
 * (a blank line): Dispatch the event" and "If the data buffer is an empty string, ... return" (no event).
 * "Once the end of the file is reached, any pending data must be discarded": an event without its closing
 * blank line is not an event.
 */
export function sseEventData(body: string): string[] {
  const events: string[] = [];
  let data: string[] = [];
  // "One leading U+FEFF BYTE ORDER MARK character must be ignored if any are present."
  const lines = body.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  // The last element follows the last line break: an unterminated line, discarded with the pending event.
  lines.pop();
  for (const line of lines) {
    if (line === '') {
      const joined = data.join('\n');
      if (joined !== '') events.push(joined);
      data = [];
      continue;
    }
    // "If the line starts with a U+003A COLON character (:): Ignore the line."
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    // "If value starts with a U+0020 SPACE character, remove it from value."
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
  }
  return events;
}

/** The JSON-RPC messages of a finished SSE body, or undefined when a `data:` field is not JSON. */
export function sseMessages(body: string): unknown[] | undefined {
  const messages: unknown[] = [];
  for (const data of sseEventData(body)) {
    try {
      messages.push(JSON.parse(data));
    } catch {
      return undefined;
    }
  }
  return messages;
}
