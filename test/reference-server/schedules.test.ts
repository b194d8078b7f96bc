import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';
import { call, finalMessage, post } from '../helpers/mcp-http.js';

/** Saved schedules (service/reference-server/tools/schedules.ts): off by default, scoped to the caller's workspace when on. */
let plain: ReferenceServer;
let withSchedules: ReferenceServer;
let a: string;
let b: string;

beforeAll(async () => {
  [plain, withSchedules] = await Promise.all([startReference(), startReference({ scheduleResources: true })]);
  [{ apiKey: a }, { apiKey: b }] = await Promise.all([bootstrap(withSchedules), bootstrap(withSchedules)]);
});
afterAll(() => Promise.all([plain.close(), withSchedules.close()]));

const SCHEDULE_TOOLS = ['schedules.create', 'schedules.list', 'schedules.get', 'schedules.pause'];

async function toolNames(server: ReferenceServer, key: string): Promise<string[]> {
  const { json } = await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { key });
  return json.result.tools.map((t: { name: string }) => t.name);
}

async function invoke(name: string, args: Record<string, unknown>, key: string) {
  return finalMessage(await post(withSchedules.mcpUrl, call(name, args), { key }));
}

describe('saved schedules', () => {
  it('are not served unless configured: the described service keeps no schedule', async () => {
    const { apiKey } = await bootstrap(plain);
    const names = await toolNames(plain, apiKey);
    expect(names).toContain('schedule.preview');
    for (const name of SCHEDULE_TOOLS) expect(names).not.toContain(name);
    expect(await toolNames(withSchedules, a)).toEqual(expect.arrayContaining([...SCHEDULE_TOOLS, 'schedule.preview']));
  });

  it('are created, listed, read and paused in the caller\'s workspace only', async () => {
    const created = await invoke('schedules.create', { name: 'nightly', expression: '0 2 * * *' }, a);
    const schedule = created.result.structuredContent.schedule;
    expect(schedule).toMatchObject({ name: 'nightly', expression: '0 2 * * *', timezone: 'UTC', paused: false, nextRunAt: expect.any(String) });
    const listed = (await invoke('schedules.list', {}, a)).result.structuredContent.schedules;
    expect(listed.map((s: { id: string }) => s.id)).toEqual([schedule.id]);
    expect((await invoke('schedules.list', {}, b)).result.structuredContent.schedules).toEqual([]);
    // Another workspace's key finds nothing by id, and changes nothing.
    for (const name of ['schedules.get', 'schedules.pause']) {
      const refused = await invoke(name, { scheduleId: schedule.id }, b);
      expect(refused.result.isError, name).toBe(true);
      expect(refused.result.content[0].text).toMatch(/not found in this workspace/);
    }
    expect((await invoke('schedules.get', { scheduleId: schedule.id }, a)).result.structuredContent.schedule.paused).toBe(false);
    const paused = (await invoke('schedules.pause', { scheduleId: schedule.id }, a)).result.structuredContent.schedule;
    expect(paused).toMatchObject({ id: schedule.id, paused: true, nextRunAt: null });
  });

  it('refuse an expression that is invalid or never fires as a tool error, before saving it', async () => {
    for (const expression of ['every day', '0 0 30 2 *', '* * * *']) {
      const msg = await invoke('schedules.create', { name: 'bad', expression }, a);
      expect(msg.result?.isError, expression).toBe(true);
    }
    expect((await invoke('schedules.create', { name: 'zone', expression: '0 9 * * 1-5', timezone: 'Mars/Olympus' }, a)).result.isError).toBe(true);
    expect((await invoke('schedules.list', {}, a)).result.structuredContent.schedules.map((s: { name: string }) => s.name)).not.toContain('bad');
  });
});
