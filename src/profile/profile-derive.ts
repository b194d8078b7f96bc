import { followPages, listed } from '../wire/list-pages.js';
import type { CallRecipe, Profile } from './profile.js';
import { schemaValidator, validValues } from '../properties/schema-arbitrary.js';
import { admittedTypes, alternativesOf, fold, view, type JsonSchema } from '../properties/schema-resolve.js';
import { ARGUMENT_SEARCH, noValidArguments, searchValue, type SearchBounds, type SearchOutcome } from '../properties/value-search.js';

/**
 * The `service` profile: call recipes built from what the spec names and what the target's `tools/list`
 * declares, never from the reference server's argument names. service.md names the six tools and the
 * `published` argument of `blocks.list`; "Complete list of tools, the arguments of every tool except
 * `blocks.list`, and the JSON shape of replies: not shown" and "The server's `tools/list` is the source of
 * truth for the tool set". So:
 * - arguments are the smallest valid instance of each tool's `inputSchema` (required properties only), read
 *   through `$ref`, `allOf` and unions, or else the first valid sample a bounded, seeded search finds;
 * - an argument that names another resource's id (`blockId`, `dataSourceId`, or `id` on a `blocks.*` tool)
 *   takes an id captured from the result of the tool that creates that resource, found by name in the
 *   result (`{ "find": "block" }`), not by our paths;
 * - a creator is `blocks.create` (named by the spec) or `<resources>.create` when tools/list offers one;
 *   publishing is any tool besides `blocks.list` taking a boolean `published` and a block id.
 * What cannot be built is a gap, with the reason its rows give as not testable ("no valid arguments found for
 * <tool> within N ms" when the search ends empty).
 */

/** The five streaming tools (service.md §Events) and the list tool. */
export const SPEC_STREAMING_TOOLS = ['blocks.create', 'blocks.build', 'dataSources.testConnection', 'dataSources.triggerRefresh', 'schedule.preview'] as const;

export interface ListedTool {
  name: string;
  inputSchema?: Record<string, any>;
  outputSchema?: Record<string, any>;
  description?: string;
  /** MCP tool annotations: `readOnlyHint` tells a read from a write (workspace-scoping checks). */
  annotations?: Record<string, unknown>;
}

type Schema = Record<string, any>;

/**
 * `blockId` -> `block`; `data_source_id` (python's spelling) -> `dataSource`; `id` on `blocks.build` ->
 * `block`; `sourceId` on `dataSources.testConnection` -> `dataSource` (the tool's own resource, named short);
 * undefined when the argument names no resource.
 */
export function resourceOf(argument: string, tool: string): string | undefined {
  const m = /^(.+?)_?(?:Id|ID|_id)$/.exec(argument);
  if (m) {
    const camel = m[1]!.replace(/_+([a-zA-Z0-9])/g, (_all, c: string) => c.toUpperCase());
    const named = camel.charAt(0).toLowerCase() + camel.slice(1);
    const own = singular(tool.split('.')[0]!);
    return own !== named && own.toLowerCase().endsWith(named.toLowerCase()) ? own : named;
  }
  if (argument === 'id') return singular(tool.split('.')[0]!);
  return undefined;
}

const singular = (plural: string) => plural.replace(/s$/, '');

/** A string a property of this name and description plausibly wants, when the schema says no more. */
function plainString(name: string, s: Schema, seed: number): string {
  const hint = `${name} ${typeof s.description === 'string' ? s.description : ''}`;
  switch (s.format) {
    case 'date-time': return new Date(Date.UTC(2026, 0, 5, 9, 0, 0)).toISOString();
    case 'date': return '2026-01-05';
    case 'email': return 'conformance@example.com';
    case 'uri': case 'url': case 'iri': return 'https://data.example.com/conformance.json';
    case 'uuid': return '00000000-0000-4000-8000-000000000000';
    default: break;
  }
  if (/cron/i.test(hint) || /^(expression|schedule)$/i.test(name)) return '0 9 * * 1-5';
  if (/url|uri|endpoint/i.test(name)) return 'https://data.example.com/conformance.json';
  if (/e-?mail/i.test(name)) return 'conformance@example.com';
  const text = `conformance ${name} ${seed % 1000}`;
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
  return text.padEnd(min, 'x').slice(0, Math.max(min, Math.min(max, text.length)));
}

/** How deep the smallest instance goes: a required recursion deeper than this has no finite instance to guess. */
const MINIMAL_DEPTH = 12;

/**
 * The smallest valid instance of a schema: `const`, `default`, `examples`, `enum` first, then required
 * properties only, through local `$ref`s and `allOf` (src/properties/schema-resolve.ts); of a union, the
 * first alternative that is not `null`. `placeholder` may replace a top-level property (an id to capture).
 * A guess: the judge (ajv) says whether it is valid.
 */
function minimal(schema: JsonSchema, root: JsonSchema, name: string, seed: number, placeholder?: (property: string) => string | undefined, depth = 0): unknown {
  const s = view(schema, root);
  if (typeof s === 'boolean' || depth > MINIMAL_DEPTH) return depth === 0 ? {} : `conformance ${name}`;
  if ('const' in s) return s.const;
  if ('default' in s) return s.default;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const union = alternativesOf(s);
  if (union) {
    // `Optional[T]` is anyOf [T, null]: T is what a caller means; null only when nothing else is offered.
    const alternatives = union.alternatives.map((alt) => fold(union.base, view(alt, root)));
    const chosen = alternatives.find((alt) => !(typeof alt === 'object' && (alt.type === 'null' || alt.const === null))) ?? alternatives[0]!;
    return minimal(chosen, root, name, seed, placeholder, depth + 1);
  }
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') ?? s.type[0] : s.type ?? (s.properties ? 'object' : undefined);
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const props: Record<string, JsonSchema> = s.properties ?? {};
      for (const key of Array.isArray(s.required) ? s.required as string[] : []) {
        const id = depth === 0 ? placeholder?.(key) : undefined;
        out[key] = id ?? (props[key] !== undefined ? minimal(props[key]!, root, key, seed, undefined, depth + 1) : `conformance ${key}`);
      }
      return out;
    }
    case 'array': return Array.from({ length: typeof s.minItems === 'number' ? s.minItems : 0 }, () => minimal(s.items ?? {}, root, name, seed, undefined, depth + 1));
    case 'integer': case 'number': {
      const lo = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 1;
      const hi = typeof s.maximum === 'number' ? s.maximum : Infinity;
      return Math.min(type === 'integer' ? Math.ceil(lo) : lo, hi);
    }
    case 'boolean': return false;
    case 'null': return null;
    case 'string': return plainString(name, s, seed);
    default: return depth === 0 ? {} : `conformance ${name}`;
  }
}

/** A tool's arguments, or why none could be built (the gap its rows give as not testable). */
export type Arguments = { args: Record<string, unknown> } | { gap: string };

/** Searches already made for a tool's arguments, by tool name: a run searches once per tool. */
export type ArgumentSearches = Map<string, SearchOutcome<unknown>>;

/**
 * Arguments for `tool`: the minimal instance when the judge takes it, else the first valid value a seeded
 * search finds within `bounds` (ids put in place afterwards), else a gap: "no valid arguments found for
 * <tool> within N ms".
 */
export function argumentsFor(tool: ListedTool, seed: number, placeholder: (property: string) => string | undefined,
  searches: ArgumentSearches = new Map(), bounds: SearchBounds = ARGUMENT_SEARCH): Arguments {
  const schema = tool.inputSchema ?? { type: 'object' };
  const guess = (typeof schema === 'object' ? minimal(schema, schema, tool.name, seed, placeholder) : {}) as Record<string, unknown>;
  let validate: ReturnType<typeof schemaValidator>;
  try {
    validate = schemaValidator(schema);
  } catch {
    // A schema the judge cannot read: the guess is all there is (tools-input-schema-compiles says why).
    return { args: isPlainObject(guess) ? guess : {} };
  }
  // Placeholders are strings; judge the guess with plausible ids in their place.
  const probe = JSON.parse(JSON.stringify(guess).replace(/"\{\{\w+\}\}"/g, '"00000000-0000-4000-8000-000000000000"'));
  if (isPlainObject(guess) && validate(probe)) return { args: guess };
  let outcome = searches.get(tool.name);
  if (!outcome) {
    outcome = searchValue(validValues(schema, { maxStringLength: 24 }), (v) => isPlainObject(v) && validate(v), seed, bounds, (v) => validate.errors(v));
    searches.set(tool.name, outcome);
  }
  if (!outcome.found) return { gap: noValidArguments(tool.name, outcome, bounds) };
  const out = { ...(outcome.value as Record<string, unknown>) };
  for (const key of Object.keys(out)) {
    const id = placeholder(key);
    if (id) out[key] = id;
  }
  return { args: out };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A top-level property's schema as the generators read it (through `$ref`s and `allOf`), or undefined. */
function propertyOf(tool: ListedTool, name: string): Schema | undefined {
  const root = tool.inputSchema;
  if (!root) return undefined;
  const top = view(root, root);
  const prop = typeof top === 'object' && top.properties && typeof top.properties === 'object' ? top.properties[name] : undefined;
  if (prop === undefined) return undefined;
  const s = view(prop, root);
  return typeof s === 'object' ? s : undefined;
}

/** The top-level property names of a tool's inputSchema (through a root `$ref` or `allOf`). */
function propertyNames(tool: ListedTool): string[] {
  const root = tool.inputSchema;
  if (!root) return [];
  const top = view(root, root);
  return typeof top === 'object' && top.properties && typeof top.properties === 'object' ? Object.keys(top.properties) : [];
}

/** The required top-level properties of a tool's inputSchema. */
function requiredOf(tool: ListedTool): string[] {
  const root = tool.inputSchema;
  if (!root) return [];
  const top = view(root, root);
  return typeof top === 'object' && Array.isArray(top.required) ? top.required : [];
}

/** Whether a top-level property takes booleans (`Optional[bool]`, anyOf [boolean, null], included). */
function takesBoolean(tool: ListedTool, name: string): boolean {
  const root = tool.inputSchema;
  const prop = root && view(root, root);
  if (!root || typeof prop !== 'object' || !prop.properties?.[name]) return false;
  return admittedTypes(prop.properties[name], root)?.includes('boolean') ?? false;
}

/** Builds the profile's recipes from the target's tools. */
export function deriveProfile(base: Profile, tools: ListedTool[], seed: number, bounds: SearchBounds = ARGUMENT_SEARCH): Profile {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const gaps: Record<string, string> = {};
  const setup: CallRecipe[] = [];
  const searches: ArgumentSearches = new Map();
  const argsOf = (tool: ListedTool, placeholder: (property: string) => string | undefined) => argumentsFor(tool, seed, placeholder, searches, bounds);
  const captured = new Map<string, string | { gap: string }>(); // resource -> var name, or why it cannot be created
  /** A creator recipe for a resource, added to setup once; undefined (with the reason) when there is none. */
  const creatorOf = (resource: string): string | undefined | { gap: string } => {
    if (captured.has(resource)) return captured.get(resource);
    const name = `${resource}s.create`;
    const creator = byName.get(name);
    if (!creator) return { gap: `needs a ${resource} id, and the spec names no way to create a ${resource} (tools/list offers no ${name})` };
    const args = argsOf(creator, () => undefined);
    if ('gap' in args) {
      captured.set(resource, { gap: `needs a ${resource} id, and ${name} cannot be called: ${args.gap}` });
      return captured.get(resource);
    }
    const variable = `${resource}Id`;
    captured.set(resource, variable);
    setup.push({ tool: name, arguments: args.args, capture: { [variable]: { find: resource } } });
    return variable;
  };
  const recipeFor = (tool: ListedTool): CallRecipe | { gap: string } => {
    const problems: string[] = [];
    const required = requiredOf(tool);
    const args = argsOf(tool, (property) => {
      const resource = required.includes(property) ? resourceOf(property, tool.name) : undefined;
      if (!resource) return undefined;
      const v = creatorOf(resource);
      if (v === undefined) return undefined;
      if (typeof v === 'object') {
        problems.push(v.gap);
        return undefined;
      }
      return `{{${v}}}`;
    });
    if (problems.length > 0) return { gap: `${tool.name} ${problems.join('; ')}` };
    if ('gap' in args) return args;
    return { tool: tool.name, arguments: args.args };
  };
  const streaming: Record<string, CallRecipe> = {};
  for (const name of SPEC_STREAMING_TOOLS) {
    const tool = byName.get(name);
    if (!tool) {
      gaps[name] = `the target's tools/list does not offer ${name}`;
      continue;
    }
    const r = recipeFor(tool);
    if ('gap' in r) gaps[name] = r.gap;
    else streaming[name] = r;
  }
  const calls: Profile['calls'] = {};
  const create = byName.get('blocks.create');
  const plain = create && argsOf(create, () => undefined);
  if (plain && 'args' in plain) {
    // The block's own name, so a check can look for it in lists: the first free-text required string.
    const nameArg = requiredOf(create!).find((k) => {
      const p = propertyOf(create!, k);
      return p !== undefined && p.type === 'string' && !p.enum && !p.format && !p.pattern && !('const' in p);
    });
    calls.createBlock = { tool: 'blocks.create', arguments: nameArg ? { ...plain.args, [nameArg]: '{{title}}' } : plain.args, capture: { blockId: { find: 'block' } } };
    // The checks' setup captures a block id first, unless a streaming recipe's setup already creates one.
    if (!captured.has('block')) setup.unshift({ tool: 'blocks.create', arguments: plain.args, capture: { blockId: { find: 'block' } } });
  } else gaps.createBlock = plain ? plain.gap : 'the target\'s tools/list does not offer blocks.create';
  const list = byName.get('blocks.list');
  if (list) calls.listBlocks = { tool: 'blocks.list', arguments: {} };
  else gaps.listBlocks = 'the target\'s tools/list does not offer blocks.list';
  const publisher = tools.find((t) => t.name !== 'blocks.list' && takesBoolean(t, 'published') && propertyNames(t).some((p) => resourceOf(p, t.name) === 'block'));
  const noPublisher = 'the spec names no way to publish a block (only blocks.list\'s `published` filter), and tools/list offers no tool taking `published` and a block id';
  if (publisher && calls.createBlock) {
    const idArg = propertyNames(publisher).find((p) => resourceOf(p, publisher.name) === 'block')!;
    const args = argsOf(publisher, (p) => (p === idArg ? '{{blockId}}' : undefined));
    if ('gap' in args) gaps.publishBlock = args.gap;
    else calls.publishBlock = { tool: publisher.name, arguments: { ...args.args, [idArg]: '{{blockId}}', published: true } };
  } else gaps.publishBlock = publisher ? `${publisher.name} publishes blocks, but no block can be created: ${gaps.createBlock}` : noPublisher;
  // Workspace scoping of data sources: a source of the check's own, named so that it can be looked for in lists.
  const dataSources = deriveResourceTools(tools, 'dataSource', seed, argsOf);
  if (dataSources?.create) calls.createDataSource = dataSources.create;
  else gaps.createDataSource = dataSources?.gaps.create ?? 'the target\'s tools/list does not offer dataSources.create (the description names no way to register a data source)';
  if (dataSources?.list) calls.listDataSources = dataSources.list;
  else gaps.listDataSources = dataSources?.gaps.list ?? 'the target\'s tools/list does not offer dataSources.list';
  return { ...base, setup, streaming, calls, gaps };
}

/** What tools/list offers for one kind of resource, as recipes (deriveResourceTools). */
export interface ResourceTools {
  /** `<resource>s.create`, naming the resource `{{title}}` and capturing `<resource>Id`. */
  create?: CallRecipe;
  /** `<resource>s.list`. */
  list?: CallRecipe;
  /** Tools requiring the resource's id that are annotated read-only, taking `{{<resource>Id}}`. */
  reads: CallRecipe[];
  /** The other tools requiring the resource's id: without a read-only annotation a tool may write. */
  writes: CallRecipe[];
  /** Tools requiring the resource's id and another resource's too, or with no valid arguments found, left out. */
  skipped: string[];
  /** Why the creator or the lister tools/list offers has no recipe (no valid arguments found). */
  gaps: { create?: string; list?: string };
}

/** The first free-text required string argument of a tool: the one to put a name in. */
function nameArgument(tool: ListedTool): string | undefined {
  return requiredOf(tool).find((k) => {
    const p = propertyOf(tool, k);
    return p !== undefined && p.type === 'string' && !p.enum && !p.format && !p.pattern && !('const' in p) && resourceOf(k, tool.name) === undefined;
  });
}

/**
 * The tools of one kind of resource in the target's tools/list, as recipes: `<resource>s.create`,
 * `<resource>s.list`, and every tool requiring the resource's id (`scheduleId`, or `id` on a `schedules.*`
 * tool). Undefined when tools/list offers none of them. Names come from tools/list alone (its source of truth).
 * `argsOf` finds each tool's arguments (deriveProfile shares its searches); by default a search of its own.
 */
export function deriveResourceTools(tools: ListedTool[], resource: string, seed: number,
  argsOf: (tool: ListedTool, placeholder: (property: string) => string | undefined) => Arguments = (tool, placeholder) => argumentsFor(tool, seed, placeholder)): ResourceTools | undefined {
  const plural = `${resource}s`;
  const idVar = `${resource}Id`;
  const creator = tools.find((t) => t.name === `${plural}.create`);
  const lister = tools.find((t) => t.name === `${plural}.list`);
  const ops = tools.filter((t) => t !== creator && t !== lister && requiredOf(t).some((p) => resourceOf(p, t.name) === resource));
  if (!creator && !lister && ops.length === 0) return undefined;
  const out: ResourceTools = { reads: [], writes: [], skipped: [], gaps: {} };
  if (creator) {
    const plain = argsOf(creator, () => undefined);
    const nameArg = nameArgument(creator);
    if ('gap' in plain) out.gaps.create = plain.gap;
    else out.create = { tool: creator.name, arguments: nameArg ? { ...plain.args, [nameArg]: '{{title}}' } : plain.args, capture: { [idVar]: { find: resource } } };
  }
  if (lister) {
    const args = argsOf(lister, () => undefined);
    if ('gap' in args) out.gaps.list = args.gap;
    else out.list = { tool: lister.name, arguments: args.args };
  }
  for (const t of ops) {
    const others = requiredOf(t).filter((p) => ![undefined, resource].includes(resourceOf(p, t.name)));
    if (others.length > 0) {
      out.skipped.push(`${t.name} (it also needs ${others.join(', ')})`);
      continue;
    }
    const args = argsOf(t, (p) => (resourceOf(p, t.name) === resource ? `{{${idVar}}}` : undefined));
    if ('gap' in args) {
      out.skipped.push(`${t.name} (${args.gap})`);
      continue;
    }
    (t.annotations?.readOnlyHint === true ? out.reads : out.writes).push({ tool: t.name, arguments: args.args });
  }
  return out;
}

/** A captured id found by name in a result: `<resource>Id`, `id` under `<resource>`, or a top-level `id`. */
export function findId(result: unknown, resource: string): unknown {
  const wanted = `${resource}Id`.toLowerCase();
  const seen = new Set<unknown>();
  const walk = (v: unknown, parent: string | undefined, depth: number): unknown => {
    if (!v || typeof v !== 'object' || seen.has(v) || depth > 6) return undefined;
    seen.add(v);
    const entries = Object.entries(v as Record<string, unknown>);
    for (const [k, x] of entries) if (k.toLowerCase() === wanted && (typeof x === 'string' || typeof x === 'number')) return x;
    if (parent?.toLowerCase() === resource.toLowerCase()) {
      const id = (v as Record<string, unknown>).id;
      if (typeof id === 'string' || typeof id === 'number') return id;
    }
    for (const [k, x] of entries) {
      const found = walk(x, k, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const found = walk(result, undefined, 0);
  if (found !== undefined) return found;
  const top = (result as Record<string, unknown> | undefined)?.id;
  return typeof top === 'string' || typeof top === 'number' ? top : undefined;
}

/** The target's tools (every page of tools/list), or why they could not be read. */
export async function listTools(mcp: { request(method: string, params?: Record<string, unknown>): Promise<{ status: number; json?: any; messages?: any[] }> }): Promise<ListedTool[] | string> {
  try {
    const pages = await followPages(async (cursor) => {
      const res = await mcp.request('tools/list', cursor === undefined ? undefined : { cursor });
      const final = res.messages ? res.messages[res.messages.length - 1] : res.json;
      if (!Array.isArray(final?.result?.tools)) throw new Error(`tools/list answered ${res.status} without a tool list`);
      return final.result;
    });
    return listed(pages).filter((t: unknown): t is ListedTool => typeof (t as ListedTool)?.name === 'string');
  } catch (err) {
    return (err as { reason?: string }).reason ?? (err as Error).message;
  }
}
