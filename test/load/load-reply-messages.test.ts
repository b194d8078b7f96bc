import { describe, expect, it } from 'vitest';
import { headerValue, replyMessages } from '../../load/autocannon/reply-messages.js';
import { checkReply } from '../../load/reply-check.js';
import { scenarioByName } from '../../load/scenarios.js';

// How the autocannon engine turns a reply body (a whole string, as autocannon's onResponse hands it) into
// the JSON-RPC messages the shared reply check judges.

const preview = scenarioByName('schedule-preview')!.requests[0]!;
const toolsList = scenarioByName('tools-list')!.requests[0]!;
const progress = (n: number) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'load', progress: n } });
const result = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [] } });

describe('reply messages', () => {
  it('reads every data event of an SSE body, whatever its line ends', () => {
    const lf = `event: message\ndata: ${progress(1)}\n\nevent: message\ndata: ${progress(2)}\n\nevent: message\ndata: ${result(4)}\n\n`;
    for (const body of [lf, lf.replace(/\n/g, '\r\n'), `: comment\n${lf}`]) {
      const messages = replyMessages('text/event-stream', body);
      expect(messages).toHaveLength(3);
      expect(checkReply(preview, 200, 'text/event-stream', messages)).toEqual({ ok: true, progress: 2 });
    }
  });

  it('judges an SSE body without its result, or with the wrong id', () => {
    const noResult = replyMessages('text/event-stream', `data: ${progress(1)}\n\n`);
    expect(checkReply(preview, 200, 'text/event-stream', noResult)).toEqual({ ok: false, kind: 'stream-no-result', progress: 1 });
    const wrongId = replyMessages('text/event-stream', `data: ${progress(1)}\n\ndata: ${result(9)}\n\n`);
    expect(checkReply(preview, 200, 'text/event-stream', wrongId).kind).toBe('wrong-id');
  });

  it('reads a JSON body as one message, and gives undefined for what does not parse', () => {
    expect(replyMessages('application/json; charset=utf-8', result(1))).toEqual([JSON.parse(result(1))]);
    expect(replyMessages('application/json', '{"jsonrpc":')).toBeUndefined();
    expect(replyMessages('text/event-stream', 'data: {not json}\n\n')).toBeUndefined();
    expect(checkReply(toolsList, 200, 'application/json', replyMessages('application/json', 'oops'))).toEqual({ ok: false, kind: 'unparseable', progress: 0 });
  });

  it('finds a header whatever the case the server wrote it in', () => {
    expect(headerValue({ 'Content-Type': 'text/event-stream' }, 'content-type')).toBe('text/event-stream');
    expect(headerValue({ 'content-type': ['application/json', 'x'] }, 'content-type')).toBe('application/json');
    expect(headerValue({}, 'content-type')).toBe('');
  });
});
