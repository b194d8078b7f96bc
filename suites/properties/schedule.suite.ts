import fc from 'fast-check';
import { defineSuite } from '../../src/engine/check.js';
import { finalMessage } from '../../src/mcp/mcp-session.js';
import { listTools } from '../../src/profile/profile-derive.js';
import { freshKey } from '../../src/properties/workspaces.js';
import { previewArb, runsOf, showPreviews, verifyRuns, type Preview } from '../../src/properties/schedule-previews.js';
import { passedDeadline } from '../../src/wire/client.js';

const { check, describe, seal } = defineSuite('properties/schedule');

/**
 * schedule.preview searched: 5-field cron expressions (lists, ranges, steps), a `from` instant (often near a DST
 * change, often exactly on a scheduled minute), a count and a time zone. Every answer is checked against an
 * evaluation of the expression of the harness's own (src/properties/cron.ts), minute by minute in the time zone
 * with Intl: the runs are after `from`, increasing, at most `count`, each on a scheduled minute, and none is
 * skipped (they are the *next* runs).
 */

/** Previews per run, sent at once: each streams (~160 ms on the embedded target), so a run costs one stream's time. */
const PREVIEWS_PER_RUN = 4;
const MAX_RUNS = 8;

describe.concurrent('schedule properties', () => {
  // schedule.preview (its own description in tools/list): "Returns the next run times of a 5-field cron expression
  // (minute hour day-of-month month day-of-week), strictly after `from` (default: now), in the given IANA time zone
  // (default UTC)." service.md §Resources: Schedule, "Operated through `schedule.preview`."
  check({ ids: 'calls-schedule-preview-consistent', name: 'property: schedule.preview returns the next run times of the expression, after from, in the time zone', property: 'schedule-preview-runs', run: async (c) => {
    const recipe = c.target.profile.streaming['schedule.preview'];
    if (!recipe || !('expression' in recipe.arguments) || !('count' in recipe.arguments)) return c.notTestable('the profile has no schedule.preview recipe with `expression` and `count`');
    const key = c.target.admin || c.target.canBootstrap || c.target.apiKey ? await freshKey(c, 'schedule-preview') : null;
    // Every page: the tool may be on any of them.
    const listed = await listTools({ request: (method, params) => c.mcp.request(method, params, { key }) });
    const tool: any = (typeof listed === 'string' ? [] : listed).find((t) => t?.name === recipe.tool);
    const props = tool?.inputSchema?.properties ?? {};
    if (!tool || !['expression', 'count', 'from', 'timezone'].every((p) => p in props)) {
      return c.notTestable(`tools/list has no ${recipe.tool} taking expression, count, from and timezone`);
    }
    c.observe(`${recipe.tool}: "${tool.description ?? ''}"`);
    if (!/cron/i.test(String(tool.description ?? ''))) return c.notTestable(`${recipe.tool}'s description does not say it evaluates cron expressions`);
    await c.property({
      // Always PREVIEWS_PER_RUN previews (almost), but a shrink drops those that do not matter to a failure.
      arbitrary: fc.array(fc.option(previewArb, { freq: 1000, nil: undefined }), { minLength: PREVIEWS_PER_RUN, maxLength: PREVIEWS_PER_RUN })
        .map((xs) => xs.filter((x): x is Preview => x !== undefined)),
      maxRuns: MAX_RUNS,
      show: showPreviews,
      predicate: async (previews) => {
        const replies = await Promise.all(previews.map(async (p) => {
          const args = { ...recipe.arguments, expression: p.expression, count: p.count, from: p.from, timezone: p.timezone };
          // The user's --timeout: a shorter deadline of the harness's own ended the search on replies merely late on a busy machine.
          const timeoutMs = c.settings.timeoutMs;
          try {
            return await c.mcp.call(recipe.tool, args, { key, timeoutMs });
          } catch (err) {
            // The deadline is the harness's choice: a slow reply proves nothing; another failure (a reset) fails.
            if (passedDeadline(err)) return c.notTestable(`${recipe.tool} ${JSON.stringify(args)} was not answered within ${timeoutMs} ms, the harness's deadline`);
            return c.verify(false, `${recipe.tool} ${JSON.stringify(args)} is answered`, 'a reply', (err as Error).message) as never;
          }
        }));
        previews.forEach((p, i) => {
          const res = replies[i]!;
          const msg = finalMessage(res);
          c.verify(res.status === 200 && msg?.result !== undefined && msg.result.isError !== true, `${p.expression} in ${p.timezone} from ${p.from}: a valid expression gets run times (not an error)`, { result: { runs: '...' } }, c.brief(res));
          verifyRuns(c, p, runsOf(msg.result));
        });
      },
    });
  } });
});

export default seal();
