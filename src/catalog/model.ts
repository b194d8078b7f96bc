import type { Requirement } from './types.js';

/**
 * Rules only a sequence of calls shows: what a client observes across workspaces, keys and blocks. They are
 * checked by the model-based property (suites/properties/model.suite.ts), which runs random sequences of
 * calls against a model of the service.
 */
export const modelRequirements: Requirement[] = [
  {
    id: 'model-created-block-listed',
    group: 'model',
    level: 'MUST',
    source: 'service.md §Resources and their fields (Block); §Limits',
    text: '"Block | Authored through tools `blocks.create`, `blocks.build`, `blocks.list`." "Plan caps apply to block authoring." (A block created with `blocks.create` is listed by `blocks.list` of its workspace from then on, whatever calls come between; a create the plan\'s cap refuses leaves no block.)',
  },
  {
    id: 'model-revocation-per-key',
    group: 'model',
    level: 'MUST',
    source: 'service.md §Authentication 4',
    text: '"One key per agent or per machine is advised, so revocation is per place." (Revoking one key of a workspace leaves its other keys working, and the revoked key stays refused.)',
  },
  {
    id: 'model-sibling-keys-same-workspace',
    group: 'model',
    level: 'MUST',
    source: 'service.md §Authentication 3, 7',
    text: '"A key is workspace-scoped: one key carries the context of one workspace." "A key is equivalent to workspace admin for the MCP write surface." (Two keys of one workspace see the same blocks, and what one of them authors or publishes, the other lists and may publish and build.)',
  },
];
