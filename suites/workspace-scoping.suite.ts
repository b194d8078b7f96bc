import { defineSuite } from '../src/engine/check.js';
import { checkScopedReads, checkScopedWrites, dataSourceCalls, scheduleCalls } from '../src/judging/workspace-scoping.js';

const { check, describe, seal } = defineSuite('workspace-scoping');

/**
 * Workspace scoping of data sources and schedules (blocks: suites/auth.suite.ts): each check makes a resource
 * of its own with the run's key and tries it with another workspace's key (src/judging/workspace-scoping.ts).
 */
describe.concurrent('workspace scoping of data sources and schedules', () => {
  // "A key is workspace-scoped: one key carries the context of one workspace."
  // "Data source | Operated through `dataSources.testConnection` and `dataSources.triggerRefresh`."
  check({ ids: 'auth-workspace-scoped-data-sources-read', name: 'a data source of one workspace is neither listed nor tested with another workspace\'s key', run: async (c) => {
    await checkScopedReads(c, dataSourceCalls(c));
  } });

  // "A key is workspace-scoped: one key carries the context of one workspace. A key is equivalent to workspace
  // admin for the MCP write surface."
  check({ ids: 'auth-workspace-scoped-data-sources-write', name: 'another workspace\'s key cannot refresh a data source, and the source shows no refresh', run: async (c) => {
    await checkScopedWrites(c, dataSourceCalls(c));
  } });

  // "A key is workspace-scoped: one key carries the context of one workspace." "The server's `tools/list` is
  // the source of truth for the tool set." (Schedule | Operated through `schedule.preview`, which keeps none.)
  check({ ids: 'auth-workspace-scoped-schedules-read', name: 'a saved schedule of one workspace is neither listed nor read with another workspace\'s key', run: async (c) => {
    await checkScopedReads(c, await scheduleCalls(c));
  } });

  // "A key is workspace-scoped: one key carries the context of one workspace. A key is equivalent to workspace
  // admin for the MCP write surface." "The server's `tools/list` is the source of truth for the tool set."
  check({ ids: 'auth-workspace-scoped-schedules-write', name: 'another workspace\'s key cannot change a saved schedule, and the schedule stays as it was', run: async (c) => {
    await checkScopedWrites(c, await scheduleCalls(c));
  } });
});

export default seal();
