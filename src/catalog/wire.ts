import type { Requirement } from './types.js';

/**
 * The bytes and frames on the wire, judged by the harness itself rather than by whichever SDK client happens
 * to trip on them (issue 24): UTF-8 without BOM, SSE events that each carry one JSON-RPC message under the
 * `message` type, notifications without ids, event ids unique across a client's streams, https URLs.
 */
export const wireRequirements: Requirement[] = [
  {
    id: 'wire-utf8',
    group: 'wire',
    level: 'MUST',
    source: 'MCP 2025-11-25 basic/transports (TRN-01); RFC 8259 §8.1; WHATWG HTML §9.2.5 Parsing an event stream',
    text: 'MCP uses JSON-RPC to encode messages. JSON-RPC messages MUST be UTF-8 encoded. RFC 8259: "JSON text exchanged between systems that are not part of a closed ecosystem MUST be encoded using UTF-8." WHATWG: "Event streams in this format must always be encoded as UTF-8."',
  },
  {
    id: 'wire-json-no-bom',
    group: 'wire',
    level: 'MUST',
    source: 'RFC 8259 §8.1; WHATWG HTML §9.2.5 Parsing an event stream (`stream = [ bom ] *event`)',
    text: 'Implementations MUST NOT add a byte order mark (U+FEFF) to the beginning of a networked-transmitted JSON text. (A JSON reply body is one, and so is the `data` of each SSE event. The event stream grammar `stream = [ bom ] *event` lets one BOM open a stream before its first event, and the stream decoder drops it: that one is allowed and only observed.)',
  },
  {
    id: 'wire-sse-data-jsonrpc',
    group: 'wire',
    level: 'MUST',
    source: 'MCP 2025-11-25 basic/index §Messages; basic/transports §Sending Messages 6; 2026-07-28 basic/transports/streamable-http §Receiving Messages (TRN-33)',
    text: 'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification. (The SSE stream carries JSON-RPC requests and notifications, then the JSON-RPC response: the `data` of every event is one JSON-RPC message. An event with empty `data`, such as 2025-11-25\'s priming event, carries none; comment lines are no events.)',
  },
  {
    id: 'wire-notification-no-id',
    group: 'wire',
    level: 'MUST',
    source: 'MCP 2025-11-25 basic/index §Notifications; JSON-RPC 2.0 §4.1',
    text: 'Notifications MUST NOT include an ID. JSON-RPC: "A Notification is a Request object without an "id" member." (A message of a notification method, `notifications/...` such as `notifications/progress`, has no `id` member.)',
  },
  {
    id: 'wire-sse-event-type',
    group: 'wire',
    level: 'MUST',
    source: 'WHATWG HTML §9.2.6 Interpreting an event stream (dispatch); MCP 2024-11-05 basic/transports §HTTP with SSE; SDK client/streamableHttp.ts (TRN-33)',
    text: 'WHATWG: "If the event type buffer has a value other than the empty string, change the type of the newly created event to equal the value of the event type buffer" (a client\'s message handler receives only events of type `message`, the type of an event without an `event` field). MCP 2024-11-05: "Server messages are sent as SSE `message` events, with the message content encoded as JSON in the event data." (service.md\'s "final `result` event" names the JSON-RPC result the event carries, not an event type.)',
    levelReason: 'No revision of Streamable HTTP names the event type, but a JSON-RPC message sent under another type is never dispatched to an MCP client as a message (the SDK clients drop it), so the client loses it: MUST.',
  },
  {
    id: 'wire-sse-event-id-unique',
    group: 'wire',
    level: 'MUST',
    source: 'MCP 2025-11-25 basic/transports §Resumability and Redelivery 1 (TRN-12); the same in 2025-03-26 and 2025-06-18',
    text: 'Servers MAY attach an `id` field to their SSE events, as described in the SSE standard. If present, the ID MUST be globally unique across all streams within that session—or all streams with that specific client, if session management is not in use. (Without sessions, as the service: all streams of one key. 2026-07-28 removed resumable streams: on a target that speaks only that revision the rule does not apply.)',
  },
  {
    id: 'wire-https-urls',
    group: 'wire',
    level: 'MUST',
    source: 'service.md §What the service does 3',
    text: 'Transport is HTTPS carrying JSON-RPC 2.0. (Every URL of the service that it hands out, the bootstrap reply\'s `claimUrl` and the discovery files\' links to the service, is https when the service is reached over https; a target reached over plain http is only observed.)',
  },
];
