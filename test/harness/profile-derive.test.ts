import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunState } from '../../src/engine/run-state.js';
import { McpSession, finalMessage } from '../../src/mcp/mcp-session.js';
import { fill, type Profile } from '../../src/profile/profile.js';
import { argumentsFor, deriveProfile, deriveResourceTools, type Arguments, findId, listTools, resourceOf, type ListedTool } from '../../src/profile/profile-derive.js';
import { schemaValidator } from '../../src/properties/schema-arbitrary.js';
import type { TargetInfo } from '../../src/targets/target-info.js';
import { WireClient } from '../../src/wire/client.js';
import { bootstrap, startReference, type ReferenceServer } from '../helpers/reference.js';

const BASE: Profile = { name: 'service', kind: 'service', setup: [], streaming: {}, calls: {}, derive: true };

/** The arguments found, or the test fails with the gap. */
function argsOf(found: Arguments): Record<string, unknown> {
  if ('gap' in found) throw new Error(found.gap);
  return found.args;
}

describe('finding ids and resources by name', () => {
  it('reads <resource>Id, an id under the resource, or a top-level id', () => {
    expect(findId({ blockId: 'b1' }, 'block')).toBe('b1');
    expect(findId({ block: { id: 'b2', title: 't' } }, 'block')).toBe('b2');
    expect(findId({ item: { BlockId: 'b3' } }, 'block')).toBe('b3');
    expect(findId({ id: 'b4' }, 'block')).toBe('b4');
    expect(findId({ dataSource: { id: 'd1' }, block: { id: 'b5' } }, 'dataSource')).toBe('d1');
    expect(findId({ title: 'nothing' }, 'block')).toBeUndefined();
  });

  it('names the resource of an id argument', () => {
    expect(resourceOf('blockId', 'blocks.build')).toBe('block');
    expect(resourceOf('dataSourceId', 'dataSources.testConnection')).toBe('dataSource');
    expect(resourceOf('id', 'blocks.build')).toBe('block');
    expect(resourceOf('data_source_id', 'dataSources.testConnection')).toBe('dataSource');
    expect(resourceOf('block_id', 'blocks.build')).toBe('block');
    expect(resourceOf('title', 'blocks.create')).toBeUndefined();
    // A tool's own resource named short (a deployment's renamed argument) is still that resource.
    expect(resourceOf('sourceId', 'dataSources.triggerRefresh')).toBe('dataSource');
    expect(resourceOf('dataSourceId', 'blocks.create')).toBe('dataSource');
    expect(resourceOf('sourceId', 'blocks.create')).toBe('source');
  });
});

describe('arguments from an inputSchema', () => {
  it('are the smallest valid instance: required properties, enum, bounds, formats', () => {
    const tool: ListedTool = { name: 'x.create', inputSchema: {
      type: 'object', additionalProperties: false, required: ['name', 'type', 'size', 'when', 'tags'],
      properties: {
        name: { type: 'string', minLength: 3, maxLength: 40 }, type: { enum: ['chart', 'text'] }, size: { type: 'integer', minimum: 2, maximum: 9 },
        when: { type: 'string', format: 'date-time' }, tags: { type: 'array', minItems: 1, items: { type: 'string' } }, optional: { type: 'string' },
      },
    } };
    const args = argsOf(argumentsFor(tool, 1, () => undefined));
    expect(schemaValidator(tool.inputSchema!)(args)).toBe(true);
    expect(Object.keys(args).sort()).toEqual(['name', 'size', 'tags', 'type', 'when']);
  });

  it('fall back to a sample the schema accepts when the plain guess does not fit (a pattern)', () => {
    const tool: ListedTool = { name: 't', inputSchema: { type: 'object', required: ['code'], properties: { code: { type: 'string', pattern: '^[A-Z]{3}-\\d{2}$' } } } };
    expect(schemaValidator(tool.inputSchema!)(argsOf(argumentsFor(tool, 3, () => undefined)))).toBe(true);
  });
});

/**
 * The service's tools as a FastMCP (pydantic v2) server publishes them: `<tool>Arguments` models with titles,
 * enums and nested models behind `$ref` into `$defs`, Optional fields as anyOf with null, `bool = None`.
 */
const FASTMCP_TOOLS: ListedTool[] = [
  { name: 'blocks.create', inputSchema: {
    $defs: { BlockKind: { enum: ['text', 'chart'], title: 'BlockKind', type: 'string' } },
    properties: {
      title: { maxLength: 200, minLength: 1, title: 'Title', type: 'string' },
      kind: { $ref: '#/$defs/BlockKind', description: 'What the block shows.' },
      dataSourceId: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null, title: 'Datasourceid' },
    },
    required: ['title', 'kind'], title: 'blocks_createArguments', type: 'object', additionalProperties: false,
  } },
  { name: 'blocks.build', inputSchema: { properties: { block_id: { title: 'Block Id', type: 'string' } }, required: ['block_id'], title: 'blocks_buildArguments', type: 'object' } },
  { name: 'blocks.list', inputSchema: { properties: { published: { default: null, title: 'Published', type: 'boolean' } }, title: 'blocks_listArguments', type: 'object' } },
  { name: 'blocks.publish', inputSchema: {
    properties: { block_id: { title: 'Block Id', type: 'string' }, published: { anyOf: [{ type: 'boolean' }, { type: 'null' }], default: null, title: 'Published' } },
    required: ['block_id'], title: 'blocks_publishArguments', type: 'object',
  } },
  { name: 'dataSources.create', inputSchema: {
    $defs: {
      Driver: { enum: ['postgres', 'http'], title: 'Driver', type: 'string' },
      Connection: { properties: { driver: { allOf: [{ $ref: '#/$defs/Driver' }], description: 'How to connect.' }, url: { format: 'uri', maxLength: 2083, minLength: 1, title: 'Url', type: 'string' } }, required: ['driver', 'url'], title: 'Connection', type: 'object' },
    },
    properties: { name: { title: 'Name', type: 'string' }, connection: { $ref: '#/$defs/Connection' } },
    required: ['name', 'connection'], title: 'dataSources_createArguments', type: 'object',
  } },
  { name: 'dataSources.testConnection', inputSchema: { properties: { data_source_id: { title: 'Data Source Id', type: 'string' } }, required: ['data_source_id'], title: 'dataSources_testConnectionArguments', type: 'object' } },
  { name: 'dataSources.triggerRefresh', inputSchema: { properties: { data_source_id: { title: 'Data Source Id', type: 'string' } }, required: ['data_source_id'], title: 'dataSources_triggerRefreshArguments', type: 'object' } },
  { name: 'schedule.preview', inputSchema: {
    properties: {
      expression: { title: 'Expression', type: 'string', pattern: '^\\S+( \\S+){4}$' },
      starting: { anyOf: [{ format: 'date-time', type: 'string' }, { type: 'null' }], default: null, title: 'Starting' },
      mode: { const: 'next', title: 'Mode', type: 'string' },
    },
    required: ['expression', 'mode'], title: 'schedule_previewArguments', type: 'object',
  } },
];

describe('deriving recipes from real schemas', () => {
  it('builds every recipe from FastMCP-shaped schemas, each valid per its tool\'s schema with ids in place', () => {
    const profile = deriveProfile(BASE, FASTMCP_TOOLS, 1);
    // This server offers no dataSources.list: the one recipe the scoping checks cannot have.
    expect(profile.gaps).toEqual({ listDataSources: 'the target\'s tools/list does not offer dataSources.list' });
    const byName = new Map(FASTMCP_TOOLS.map((t) => [t.name, t]));
    const ids = { blockId: 'blk_1', dataSourceId: 'ds_1', title: 'a title' };
    const recipes = [...profile.setup, ...Object.values(profile.streaming), ...Object.values(profile.calls)];
    expect(recipes.map((r) => r.tool)).toEqual(expect.arrayContaining(['dataSources.create', 'blocks.create', 'blocks.build', 'schedule.preview', 'blocks.publish']));
    for (const recipe of recipes) {
      const validate = schemaValidator(byName.get(recipe.tool)!.inputSchema!);
      const args = fill(recipe.arguments, ids);
      expect(validate(args), `${recipe.tool} ${JSON.stringify(args)}: ${validate.errors(args)}`).toBe(true);
    }
    expect(profile.setup[0]).toMatchObject({ tool: 'blocks.create', arguments: { kind: 'text' } });
    expect(profile.streaming['dataSources.testConnection']?.arguments).toEqual({ data_source_id: '{{dataSourceId}}' });
    expect(profile.calls.publishBlock).toMatchObject({ tool: 'blocks.publish', arguments: { block_id: '{{blockId}}', published: true } });
  });

  it('the same seed gives the same arguments', () => {
    expect(deriveProfile(BASE, FASTMCP_TOOLS, 7)).toEqual(deriveProfile(BASE, FASTMCP_TOOLS, 7));
    const preview = FASTMCP_TOOLS.find((t) => t.name === 'schedule.preview')!;
    expect(argumentsFor(preview, 7, () => undefined)).toEqual(argumentsFor(preview, 7, () => undefined));
  });

  it('a tool no valid arguments are found for, within the search\'s bounds, is a gap that names it, never a hang', () => {
    const bounds = { deadlineMs: 100, maxTries: 100_000 };
    const impossible = FASTMCP_TOOLS.map((t) => (t.name === 'blocks.create'
      ? { ...t, inputSchema: { ...t.inputSchema, properties: { ...t.inputSchema!.properties, title: { allOf: [{ type: 'string' }, { type: 'integer' }] } } } }
      : t.name === 'dataSources.create'
        ? { ...t, inputSchema: { ...t.inputSchema, properties: { ...t.inputSchema!.properties, name: { type: 'string', pattern: '^(?!a)a$' } } } }
        : t));
    const profile = deriveProfile(BASE, impossible, 1, bounds);
    expect(profile.gaps?.createBlock).toMatch(/^no valid arguments found for blocks\.create within 100 ms \(\d+ candidates from its inputSchema, none valid; the last: data\/title must be (string|integer)\)$/);
    expect(profile.gaps?.['blocks.create']).toBe(profile.gaps?.createBlock);
    expect(profile.gaps?.['blocks.build']).toMatch(/needs a block id, and blocks\.create cannot be called: no valid arguments found for blocks\.create within 100 ms/);
    expect(profile.gaps?.['dataSources.testConnection']).toMatch(/no valid arguments found for dataSources\.create within 100 ms .*must match pattern/);
    expect(profile.gaps?.publishBlock).toMatch(/no block can be created: no valid arguments found for blocks\.create/);
    expect(profile.streaming['schedule.preview']).toBeDefined();
    expect(profile.calls.createBlock).toBeUndefined();
    expect(profile.setup).toEqual([]);
  });
});

describe('deriving the service profile', () => {
  let server: ReferenceServer;
  let target: TargetInfo;
  let tools: ListedTool[];
  beforeAll(async () => {
    server = await startReference();
    const { apiKey } = await bootstrap(server);
    target = {
      kind: 'url', baseUrl: server.baseUrl, mcpUrl: server.mcpUrl, headers: {}, apiKey, canBootstrap: false, profile: BASE,
      revisions: [],
    };
    const listed = await listTools(new McpSession(new WireClient([], () => [], { timeoutMs: 5000, run: new RunState() }), target));
    if (typeof listed === 'string') throw new Error(listed);
    tools = listed;
  });
  afterAll(() => server.close());

  it('builds a recipe for each streaming tool and the named calls, and they work on the reference', async () => {
    const profile = deriveProfile(BASE, tools, 1);
    expect(Object.keys(profile.streaming).sort()).toEqual(['blocks.build', 'blocks.create', 'dataSources.testConnection', 'dataSources.triggerRefresh', 'schedule.preview']);
    expect(profile.gaps).toEqual({});
    expect(profile.calls.publishBlock?.arguments).toMatchObject({ published: true });
    // Nothing copied from the reference profile: ids are found by name, never by our paths.
    expect(JSON.stringify(profile)).not.toContain('/block/id');
    const mcp = new McpSession(new WireClient([], () => [], { timeoutMs: 5000, run: new RunState() }), { ...target, profile });
    const vars = await mcp.setup();
    expect(vars.blockId).toEqual(expect.any(String));
    expect(vars.dataSourceId).toEqual(expect.any(String));
    for (const recipe of Object.values(profile.streaming)) {
      const res = await mcp.call(recipe.tool, fill(recipe.arguments, vars) as Record<string, unknown>, { progressToken: 1 });
      expect(finalMessage(res)?.result?.isError, `${recipe.tool} ${JSON.stringify(finalMessage(res))}`).not.toBe(true);
    }
    const created = await mcp.recipe(profile.calls.createBlock!, { title: 'derived' });
    expect(finalMessage(created)?.result?.isError).not.toBe(true);
  });

  it('finds the data source creator and list for the scoping checks: a named source, its id captured by name, listed', async () => {
    const profile = deriveProfile(BASE, tools, 1);
    expect(profile.calls.createDataSource).toMatchObject({ tool: 'dataSources.create', arguments: { name: '{{title}}' }, capture: { dataSourceId: { find: 'dataSource' } } });
    expect(profile.calls.listDataSources).toEqual({ tool: 'dataSources.list', arguments: {} });
    // The streaming recipes take the variable the creator captures.
    expect(profile.streaming['dataSources.triggerRefresh']?.arguments).toEqual({ dataSourceId: '{{dataSourceId}}' });
    const mcp = new McpSession(new WireClient([], () => [], { timeoutMs: 5000, run: new RunState() }), { ...target, profile });
    const vars: Record<string, unknown> = { title: 'derived source' };
    await mcp.recipe(profile.calls.createDataSource!, vars);
    expect(vars.dataSourceId).toEqual(expect.any(String));
    const listed = await mcp.recipe(profile.calls.listDataSources!, {});
    expect(listed.text).toContain(vars.dataSourceId as string);
    expect(listed.text).toContain('derived source');
    const without = deriveProfile(BASE, tools.filter((t) => !t.name.startsWith('dataSources.')), 1);
    expect(without.gaps?.createDataSource).toMatch(/does not offer dataSources.create/);
    expect(without.gaps?.listDataSources).toMatch(/does not offer dataSources.list/);
  });

  it('a resource\'s tools from tools/list: creator, list, reads (read-only) and writes taking its id; none offered, none found', () => {
    const idOnly = (name: string, annotations?: Record<string, unknown>, more: Record<string, unknown> = {}): ListedTool => ({
      name, ...(annotations && { annotations }),
      inputSchema: { type: 'object', properties: { scheduleId: { type: 'string' }, ...more }, required: ['scheduleId', ...Object.keys(more)] },
    });
    const offered: ListedTool[] = [
      { name: 'schedule.preview', inputSchema: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] } },
      { name: 'schedules.create', inputSchema: { type: 'object', properties: { label: { type: 'string', minLength: 1 }, cron: { type: 'string', description: 'a cron expression' } }, required: ['label', 'cron'] } },
      { name: 'schedules.list', inputSchema: { type: 'object', properties: {} } },
      idOnly('schedules.get', { readOnlyHint: true }),
      idOnly('schedules.delete', { readOnlyHint: false, destructiveHint: true }),
      idOnly('schedules.rename'),
      idOnly('schedules.attach', undefined, { blockId: { type: 'string' } }),
    ];
    const found = deriveResourceTools(offered, 'schedule', 1)!;
    expect(found.create).toMatchObject({ tool: 'schedules.create', arguments: { label: '{{title}}', cron: expect.any(String) }, capture: { scheduleId: { find: 'schedule' } } });
    expect(found.list).toEqual({ tool: 'schedules.list', arguments: {} });
    expect(found.reads).toEqual([{ tool: 'schedules.get', arguments: { scheduleId: '{{scheduleId}}' } }]);
    // Without a read-only annotation a tool may write.
    expect(found.writes.map((r) => r.tool)).toEqual(['schedules.delete', 'schedules.rename']);
    expect(found.skipped).toEqual(['schedules.attach (it also needs blockId)']);
    // The reference offers schedule.preview alone: no schedule resource.
    expect(deriveResourceTools(tools, 'schedule', 1)).toBeUndefined();
    expect(deriveResourceTools(offered.filter((t) => t.name === 'schedules.get'), 'schedule', 1)).toMatchObject({ reads: [{ tool: 'schedules.get' }], writes: [] });
  });

  it('a tool the target lacks, or an id nothing creates, is a gap with the reason', () => {
    const without = tools.filter((t) => t.name !== 'dataSources.create' && t.name !== 'schedule.preview' && t.name !== 'blocks.publish');
    const profile = deriveProfile(BASE, without, 1);
    expect(profile.streaming['dataSources.testConnection']).toBeUndefined();
    expect(profile.gaps?.['dataSources.testConnection']).toMatch(/no way to create a dataSource/);
    expect(profile.gaps?.['schedule.preview']).toMatch(/does not offer schedule.preview/);
    expect(profile.streaming['blocks.build']).toBeDefined();
    // blocks.update on the reference takes `published` and a block id: still a way to publish.
    const noPublisher = without.filter((t) => !t.inputSchema?.properties?.published || t.name === 'blocks.list');
    expect(deriveProfile(BASE, noPublisher, 1).gaps?.publishBlock).toMatch(/names no way to publish/);
  });
});
