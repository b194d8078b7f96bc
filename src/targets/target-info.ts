import type { Revision } from '../catalog/types.js';
import type { RunLimits } from '../profile/limits.js';
import type { Profile } from '../profile/profile.js';

/**
 * What the checks know of the target: where it is, the keys and headers it is sent, what it was found to
 * speak, and what the user declared of it (its profile's recipes, its limits). Keys are here because checks
 * must send them; every record of an exchange redacts them. Read-only: the run adds each fact once, as it
 * learns it, to a new object (src/engine/run.ts). The run's own settings (seed, deadlines, property
 * budget, the revision asked for) are not facts about the target: src/engine/run-settings.ts.
 */
export interface TargetInfo {
  readonly kind: 'embedded' | 'url' | 'container' | 'stdio';
  readonly baseUrl: string;
  /** The MCP endpoint, `{baseUrl}/api/mcp/v1` unless `--mcp-url` says otherwise. */
  readonly mcpUrl: string;
  /**
   * The deployment's public origin, which its discovery files must name (`--public-base-url`, the profile's
   * `publicBaseUrl`, or the origin of a server the harness started); absent: any origin is only noted.
   */
  readonly publicBaseUrl?: string;
  /** Extra headers sent with every MCP request (`--header`). */
  readonly headers: Record<string, string>;
  /** A live key of workspace A (from bootstrap, or `--api-key`); absent for servers without auth. */
  readonly apiKey?: string;
  /** Where the given keys came from (`--api-key`, or the variable `MCP_API_KEY`): a refusal names it. */
  readonly keySources?: { apiKey?: string; otherKey?: string };
  /** A live key of another workspace, for isolation checks (from bootstrap, or `--other-key`). */
  readonly otherKey?: string;
  /** Why there is no `apiKey` on a service target (bootstrap refused, budget spent): key rows say so. */
  readonly noKeyReason?: string;
  /** Why there is no `otherKey`. */
  readonly noOtherKeyReason?: string;
  /**
   * The replies of the preparation's own bootstraps (keys A, B, ... in order): the bootstrap rows compare them
   * with the suite's own, spending nothing more (a service answering every bootstrap with one cached reply
   * hands out one key twice).
   */
  readonly bootstrapped?: { label: string; apiKey: string; claimUrl?: string }[];
  /** A revoked key (`--revoked-key`, or minted then revoked on the embedded target). */
  readonly revokedKey?: string;
  /** Prefix before `_live_` in keys, learnt from the keys in hand. */
  readonly keyPrefix?: string;
  /** Whether `POST /api/agent/bootstrap` may be called (it creates workspaces and sends mail). */
  readonly canBootstrap: boolean;
  /** `GET` returns the mails the harness's own SMTP sink received, when it runs one the target mails to. */
  readonly mailboxUrl?: string;
  /** The stdio proxy command, for the stdio target. */
  readonly stdio?: { command: string; args: string[]; env: Record<string, string> };
  /** `generic`: only protocol-level checks that hold for any Streamable HTTP MCP server. */
  readonly profile: Profile;
  /**
   * The declared limits the rate-limit and plan-cap rows hold the target to, with the plan of each key the
   * run holds (src/profile/limits.ts); absent when nothing was declared.
   */
  readonly limits?: RunLimits;
  /** Revisions the target was found to speak (or the one given with --protocol). */
  readonly revisions: Revision[];
  /**
   * Set when detection negotiated no revision it asked for in a way the protocol does not allow: what the
   * probes were answered (a -32601 to `initialize`, a 5xx). A 2025 row's absence is then the service's
   * failure, not a limit of the target (a modern-only server names its supported versions instead).
   */
  readonly revisionRefusal?: string;
  /**
   * A control channel outside the service (embedded target only): mints and revokes keys of a workspace,
   * as the service's admin settings would. Its token is a secret like a key.
   */
  readonly admin?: { url: string; token: string };
  /**
   * Stateful Streamable HTTP servers: the session the run opened with `initialize` (its `Mcp-Session-Id`),
   * sent on every later request. Absent for stateless servers such as the service.
   */
  readonly sessionId?: string;
}
