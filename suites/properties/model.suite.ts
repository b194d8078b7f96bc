import type { RunSettings } from '../../src/engine/run-settings.js';
import { defineSuite } from '../../src/engine/check.js';
import { checkServiceModel } from '../../src/properties/model/run.js';

const { check, describe, seal } = defineSuite('properties/model');

/** Quick mode is time-boxed (1.5 s of search, 10 s of shrinking); deep mode is not: about 0.5 s per run. */
const timeout = ({ property: budget }: RunSettings) => (budget.timeLimitMs > 0 ? 60_000 : 120_000 + budget.runs * 1_500);

describe('model', () => {
  // "Block | Authored through tools `blocks.create`, `blocks.build`, `blocks.list`." "Plan caps apply to block authoring."
  // "A key is workspace-scoped: one key carries the context of one workspace."
  // "A key is equivalent to workspace admin for the MCP write surface."
  // "One key per agent or per machine is advised, so revocation is per place." "Invalid or expired tokens MUST receive a HTTP 401 response."
  // "`blocks.list` accepts a boolean argument `published`."
  check({ ids: [
    'model-created-block-listed', 'model-sibling-keys-same-workspace', 'model-revocation-per-key',
    'auth-workspace-scoped-read', 'auth-workspace-scoped-write', 'auth-revoked-key-401', 'calls-published-filter-partitions',
  ], name: 'random sequences of creates, publishes, builds, lists, key mints and revocations agree with a model of workspaces, keys and blocks', timeout, property: 'service-model', run: checkServiceModel });
});

export default seal();
