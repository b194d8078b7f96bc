import type { Requirement } from './types.js';

const MCP_401 = 'MCP 2025-11-25 basic/authorization §Access Token Usage, Token Handling (spec-requirements AUTH-03)';

/**
 * The static Bearer key of service.md §Authentication, with the HTTP and RFC 6750 rules for rejecting a
 * request (spec-requirements AUTH-03..AUTH-10). Every rejection is a 401 before any JSON-RPC processing.
 */
export const authRequirements: Requirement[] = [
  {
    id: 'auth-missing-key-401',
    group: 'auth',
    level: 'MUST',
    source: `service.md §Authentication 1; ${MCP_401}`,
    text: 'Every request to the MCP endpoint carries `Authorization: Bearer <API_KEY>`. Invalid or expired tokens MUST receive a HTTP 401 response.',
  },
  {
    id: 'auth-empty-credential-401',
    group: 'auth',
    level: 'MUST',
    source: `service.md §Authentication 1, 2; ${MCP_401}; RFC 6750 §2.1`,
    text: 'Every request to the MCP endpoint carries `Authorization: Bearer <API_KEY>` (credentials = "Bearer" 1*SP b64token). Invalid or expired tokens MUST receive a HTTP 401 response.',
  },
  {
    id: 'auth-other-scheme-401',
    group: 'auth',
    level: 'MUST',
    source: 'service.md §What the service does ("Streamable HTTP with a static Bearer token"), §Authentication 1; MCP 2025-11-25 basic/authorization §Error Handling (spec-requirements AUTH-04)',
    text: 'The MCP transport is Streamable HTTP with a static Bearer token. 401 Unauthorized: Authorization required or token invalid.',
  },
  {
    id: 'auth-wrong-prefix-401',
    group: 'auth',
    level: 'MUST',
    source: `service.md §Authentication 2; ${MCP_401}`,
    text: 'The key has the form `<KEY_PREFIX>_live_<secret>`. Invalid or expired tokens MUST receive a HTTP 401 response.',
  },
  {
    id: 'auth-altered-key-401',
    group: 'auth',
    level: 'MUST',
    source: `service.md §Authentication 6; ${MCP_401}`,
    text: 'The plaintext key is displayed once; the service stores only a hash. (A key with characters added, removed or changed is another key.) Invalid or expired tokens MUST receive a HTTP 401 response.',
  },
  {
    id: 'auth-unknown-key-401',
    group: 'auth',
    level: 'MUST',
    source: `service.md §Authentication 5, 6; ${MCP_401} (spec-requirements AUTH-10)`,
    text: 'MCP servers, acting in their role as an OAuth 2.1 resource server, MUST validate access tokens. (A well-formed key that was never minted is invalid.) Invalid or expired tokens MUST receive a HTTP 401 response.',
  },
  {
    id: 'auth-revoked-key-401',
    group: 'auth',
    level: 'MUST',
    source: `service.md §Authentication 4, 7; ${MCP_401} (spec-requirements AUTH-10)`,
    text: 'One key per agent or per machine is advised, so revocation is per place. Invalid or expired tokens MUST receive a HTTP 401 response.',
  },
  {
    id: 'auth-key-case-sensitive',
    group: 'auth',
    level: 'MUST',
    source: 'RFC 9110 §11.1; RFC 6750 §2.1; service.md §Authentication 6',
    text: 'It uses a case-insensitive token to identify the authentication scheme (only the scheme: the b64token credential is compared exactly, so a case variant of a key is another key and gets 401).',
    levelReason: 'Only the scheme is case-insensitive (RFC 9110) and the credential is the exact b64token (RFC 6750), so accepting a case variant lets in a key that was never issued: MUST.',
  },
  {
    id: 'auth-scheme-case-insensitive',
    group: 'auth',
    level: 'MUST',
    source: 'RFC 9110 §11.1 (spec-requirements AUTH-09)',
    text: 'It uses a case-insensitive token to identify the authentication scheme.',
    levelReason: 'The sentence defines HTTP authentication syntax: `bearer` is the scheme `Bearer`, so refusing it refuses the `Authorization: Bearer <API_KEY>` that service.md §Authentication 1 requires: MUST.',
  },
  {
    id: 'auth-whitespace-variants-401',
    group: 'auth',
    level: 'MUST',
    source: `RFC 6750 §2.1; ${MCP_401}`,
    text: 'credentials = "Bearer" 1*SP b64token. (A credential split by whitespace, or followed by another token, is not the key: 401.)',
    levelReason: 'The grammar admits exactly one b64token after the scheme, so a credential with more after it is not the key, and accepting it admits credentials that were never issued: MUST.',
  },
  {
    id: 'auth-www-authenticate',
    group: 'auth',
    level: 'MUST',
    source: 'RFC 9110 §15.5.2, §11.6.1; RFC 6750 §3 (spec-requirements AUTH-05)',
    text: 'The server generating a 401 response MUST send a WWW-Authenticate header field containing at least one challenge applicable to the target resource. (Bearer keys: the challenge uses the scheme `Bearer`.)',
  },
  {
    id: 'auth-missing-no-error-code',
    group: 'auth',
    level: 'SHOULD',
    source: 'RFC 6750 §3 (spec-requirements AUTH-07)',
    text: 'If the request lacks any authentication information (e.g., the client was unaware that authentication is necessary or attempted using an unsupported authentication method), the resource server SHOULD NOT include an error code or other error information.',
  },
  {
    id: 'auth-invalid-token-error',
    group: 'auth',
    level: 'SHOULD',
    source: 'RFC 6750 §3, §3.1 (spec-requirements AUTH-08)',
    text: 'If the protected resource request included an access token and failed authentication, the resource server SHOULD include the "error" attribute to provide the client with the reason why the access request was declined. invalid_token: The access token provided is expired, revoked, malformed, or invalid for other reasons.',
  },
  {
    id: 'auth-key-not-echoed',
    group: 'auth',
    level: 'MUST',
    source: 'service.md §Authentication 6, 7',
    text: 'The plaintext key is displayed once; the service stores only a hash. There is no way to show it again. It is to be treated as a password. (A rejection never repeats the credential it was sent, in its body or its headers.)',
  },
  {
    id: 'auth-key-never-echoed',
    group: 'auth',
    level: 'MUST',
    source: 'service.md §Authentication 6, 7; §Endpoints 2 ("Response: includes `apiKey` (a temporary MCP key, returned immediately)")',
    text: 'The plaintext key is displayed once; the service stores only a hash. There is no way to show it again. It is to be treated as a password. (No reply to any request, accepted or refused, throttled or streamed, carries a key in any spelling: whole or its secret part, JSON-escaped, percent-encoded, base64 or base64url, in any case, in its body, headers or events; the bootstrap reply that mints a key is the one place it is displayed.)',
  },
  {
    id: 'auth-workspace-scoped-read',
    group: 'auth',
    level: 'MUST',
    source: 'service.md §Authentication 3; §Resources (Workspace: "Container that a key is scoped to")',
    text: 'A key is workspace-scoped: one key carries the context of one workspace. (`blocks.list` with another workspace\'s key never shows this workspace\'s blocks.)',
  },
  {
    id: 'auth-workspace-scoped-write',
    group: 'auth',
    level: 'MUST',
    source: 'service.md §Authentication 3, 7',
    text: 'A key is workspace-scoped: one key carries the context of one workspace. A key is equivalent to workspace admin for the MCP write surface. (Another workspace\'s key cannot publish or build this workspace\'s blocks.)',
  },
];
