import type { Requirement } from './types.js';

/**
 * `POST /api/agent/bootstrap`: project-defined (spec-requirements DISC-09), so the service description
 * says what the reply holds and the generic HTTP rules say how bad requests are answered. The description
 * does not state which request fields are required, so only a missing `humanEmail` (without which no
 * claim link can be mailed) must be refused; other missing fields only must not cause a 5xx.
 */
export const bootstrapRequirements: Requirement[] = [
  {
    id: 'bootstrap-returns-key',
    group: 'bootstrap',
    level: 'MUST',
    source: 'service.md §Endpoints 2 (Response); §Authentication 2, 9',
    text: 'Response: includes `apiKey` (a temporary MCP key, returned immediately) and `claimUrl` (a link for the human). The key has the form `<KEY_PREFIX>_live_<secret>`.',
  },
  {
    id: 'bootstrap-key-b64token',
    group: 'bootstrap',
    level: 'MUST',
    source: 'RFC 6750 §2.1 (spec-requirements AUTH-11); service.md §Authentication 1',
    text: 'b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="; credentials = "Bearer" 1*SP b64token',
    levelReason: 'The grammar is normative: a key outside b64token cannot be sent as the Bearer credential that service.md §Authentication 1 puts on every request, so the key\'s form binds as MUST.',
  },
  {
    id: 'bootstrap-returns-claim-url',
    group: 'bootstrap',
    level: 'MUST',
    source: 'service.md §Endpoints 2 (Response, rule 2); §Resources (Claim link)',
    text: 'Response: includes `apiKey` (a temporary MCP key, returned immediately) and `claimUrl` (a link for the human). The agent passes `claimUrl` to the human.',
  },
  {
    id: 'bootstrap-no-auth',
    group: 'bootstrap',
    level: 'MUST',
    source: 'service.md §Endpoints 2 (Request headers); §Authentication 9',
    text: 'Request headers: `Content-Type: application/json`. No Authorization header is sent. Bootstrap (no auth) yields a temporary key (`apiKey`) usable the same way.',
  },
  {
    id: 'bootstrap-key-works',
    group: 'bootstrap',
    level: 'MUST',
    source: 'service.md §Endpoints 2 (Response, rule 1); §Authentication 9',
    text: 'The agent connects to the MCP endpoint with the returned `apiKey` (a temporary MCP key, returned immediately).',
  },
  {
    id: 'bootstrap-fresh-workspace',
    group: 'bootstrap',
    level: 'MUST',
    source: 'service.md §Endpoints 2 (Request body: `workspaceName`, `canvasName`); §Resources (Workspace, Canvas, Claim link); §Authentication 3',
    text: '`workspaceName`: Name of the workspace to create. `canvasName`: Name of the canvas to create. A key is workspace-scoped: one key carries the context of one workspace. (Each bootstrap creates its own workspace: two bootstraps give two keys and two claim links, never one reply handed out twice.)',
  },
  {
    id: 'bootstrap-missing-email-4xx',
    group: 'bootstrap',
    level: 'MUST',
    source: 'service.md §Endpoints 2 (rule 2); RFC 9110 §15.5.1 (spec-requirements DISC-09)',
    text: 'The service also emails a claim link to the human. (A body without `humanEmail` cannot be served: "The 400 (Bad Request) status code indicates that the server cannot or will not process the request due to something that is perceived to be a client error".)',
  },
  {
    id: 'bootstrap-missing-field-no-5xx',
    group: 'bootstrap',
    level: 'MUST',
    source: 'RFC 9110 §15.6 (spec-requirements DISC-09); service.md §Endpoints 2',
    text: 'The 5xx (Server Error) class of status code indicates that the server is aware that it has erred or is incapable of performing the requested method. (The requiredness of request fields is not stated: a body missing a field is accepted or refused with a 4xx, never a 5xx.)',
    levelReason: 'RFC 9110 defines a 5xx as the server\'s own failure; the description leaves the requiredness of fields open, so accepting the body or refusing it with a 4xx are both allowed, and only crashing on it breaks the contract: MUST.',
  },
  {
    id: 'bootstrap-wrong-type-4xx',
    group: 'bootstrap',
    level: 'SHOULD',
    source: 'service.md §Endpoints 2 (Request body); RFC 9110 §15.5.1',
    text: '`humanEmail`: string, e-mail address; `agentName`: string; `workspaceName`: string; `canvasName`: string. A field of another type is a client error (400-class).',
    levelReason: 'The description declares each field\'s type but no sentence demands that a field of another type be refused (a service may read 42 as "42"), so refusing it is a SHOULD; a 5xx for it is bootstrap-bad-field-no-5xx\'s failure.',
  },
  {
    id: 'bootstrap-bad-email-4xx',
    group: 'bootstrap',
    level: 'SHOULD',
    source: 'service.md §Endpoints 2 (Request body); RFC 9110 §15.5.1',
    text: '`humanEmail`: string, e-mail address. Address of the human who receives the claim link.',
    levelReason: 'The description declares `humanEmail` an e-mail address but no sentence demands that another value be refused (the claim mail then cannot arrive, bootstrap-claim-mail\'s concern), so refusing it is a SHOULD; a 5xx is bootstrap-bad-field-no-5xx\'s failure.',
  },
  {
    id: 'bootstrap-bad-field-no-5xx',
    group: 'bootstrap',
    level: 'MUST',
    source: 'RFC 9110 §15.6 (spec-requirements DISC-09); service.md §Endpoints 2 (Request body)',
    text: 'The 5xx (Server Error) class of status code indicates that the server is aware that it has erred or is incapable of performing the requested method. (A field of another type, or a `humanEmail` that is not an address, is the client\'s error: the body is accepted or refused with a 4xx, never answered 5xx.)',
    levelReason: 'RFC 9110 defines a 5xx as the server\'s own failure; a wrong type or a bad address is the client\'s, which the service may accept or refuse with a 4xx, so only crashing on it breaks the contract: MUST.',
  },
  {
    id: 'bootstrap-malformed-body-4xx',
    group: 'bootstrap',
    level: 'MUST',
    source: 'service.md §Endpoints 2 (Request headers, Request body); RFC 9110 §15.5.1',
    text: 'Request headers: `Content-Type: application/json`; the request body is an object of the four fields. A body that is not JSON, or not a JSON object, is a client error (4xx), never a 5xx.',
  },
  {
    id: 'bootstrap-get-405',
    group: 'bootstrap',
    level: 'MUST',
    source: 'service.md §Endpoints 2 (Method: POST); RFC 9110 §15.5.6',
    text: 'The origin server MUST generate an Allow header field in a 405 response containing a list of the target resource\'s currently supported methods. (The bootstrap endpoint\'s method is POST: a 405 it answers to GET names POST in Allow. No sentence demands a 405 for GET: a GET answered otherwise is not concerned.)',
  },
  {
    id: 'bootstrap-claim-mail',
    group: 'bootstrap',
    level: 'MUST',
    source: 'service.md §Endpoints 2 (rule 2); §Resources (Claim link); §What the service does',
    text: 'The agent passes `claimUrl` to the human; the service also emails a claim link to the human. Claim link: Returned by bootstrap as `claimUrl`. It is also emailed to the human.',
  },
  {
    id: 'bootstrap-claim-url-resolves',
    group: 'bootstrap',
    level: 'MUST',
    source: 'service.md §Endpoints 2 (rule 2); §Resources (Canvas: "It can be claimed by a human")',
    text: 'The agent passes `claimUrl` to the human. (A link for a human resolves: GET answers below 400.)',
  },
];
