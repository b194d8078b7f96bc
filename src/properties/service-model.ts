import fc from 'fast-check';
import type { CheckContext } from '../check.js';
import { finalMessage } from '../mcp-session.js';
import { fill, type CallRecipe } from '../profile.js';
import type { WireResponse } from '../wire/client.js';
import { canAdminister, freshKey, mintSibling, revokeKey } from './workspaces.js';
import { isObject, listedItems, textOf } from '../tool-result.js';

/**
 * A model of what a client observes of the service across calls: workspaces, their keys (live or revoked)
 * and their blocks (id, published flag). Random sequences of commands run against the model and the real
 * service side by side; each command calls the service with an explicit key, compares what it observes
 * with the model, then updates the model. Every run starts from two fresh workspaces, A and B, with two
 * keys each (A1, A2, B1, B2), on the embedded target's `conformance` plan (25 blocks per workspace). Two
 * keys, not one: most rules of a sequence need a sibling key (revocation, scoping), and with a mint
 * needed first the quick mode's few runs too rarely reach them.
 *
 * Keys are secrets: the model names them ("key A2"), the real side maps names to plaintext, and neither
 * a command's description nor a failure message ever holds one.
 */

/** The property's id (replay: `--replay service-model:<path>`). */
export const MODEL_PROPERTY_ID = 'service-model';

/** Blocks per workspace on the embedded target's `conformance` plan (src/targets/embedded.ts). */
export const CONFORMANCE_MAX_BLOCKS = 25;

/**
 * The size of a run. A streaming call costs about 160 ms on the embedded target, any other call a few ms:
 * quick mode (a 1.5 s time box per property) gets long runs of cheap calls with at most one streaming
 * call, so a run takes about 0.2 s and the box holds 5 to 10 of them; deep mode allows more per run.
 */
export interface ModelSize { maxCommands: number; maxStreaming: number }
export const QUICK_SIZE: ModelSize = { maxCommands: 36, maxStreaming: 1 };
export const DEEP_SIZE: ModelSize = { maxCommands: 36, maxStreaming: 5 };
/** Keys per workspace, the first two included. */
const MAX_KEYS = 4;

type WsName = 'A' | 'B';
const other = (ws: WsName): WsName => (ws === 'A' ? 'B' : 'A');

export interface ModelKey { label: string; live: boolean }
/** `published` is undefined until observed: the service does not say what a new block's flag is. `by`: the key that created it. */
export interface ModelBlock { label: string; id: string; published: boolean | undefined; by: string }
export interface ModelWorkspace { name: WsName; keys: ModelKey[]; blocks: ModelBlock[]; labels: number }
export interface Model {
  ws: Record<WsName, ModelWorkspace>;
  cap: number;
  /** Streaming calls this run may still make. */
  streamingLeft: number;
  /** Commands run so far (their number in the printed sequence). */
  step: number;
}

/** The profile's recipes the commands use; `unpublish` when the publish recipe takes the flag. */
export interface Recipes { create: CallRecipe; list: CallRecipe; publish?: CallRecipe; build?: CallRecipe; unpublish: boolean }

export interface Real {
  c: CheckContext;
  recipes: Recipes;
  /** Key name (A1) -> plaintext. Never printed. */
  keys: Map<string, string>;
}

function initialModel(size: ModelSize): Model {
  const ws = (name: WsName): ModelWorkspace => ({ name, keys: [{ label: `${name}1`, live: true }, { label: `${name}2`, live: true }], blocks: [], labels: 0 });
  return { ws: { A: ws('A'), B: ws('B') }, cap: CONFORMANCE_MAX_BLOCKS, streamingLeft: size.maxStreaming, step: 0 };
}

async function setup(c: CheckContext, recipes: Recipes, size: ModelSize): Promise<{ model: Model; real: Real }> {
  const [a, b] = await Promise.all([freshKey(c, 'model workspace A', 'conformance'), freshKey(c, 'model workspace B', 'conformance')]);
  const [a2, b2] = await Promise.all([mintSibling(c, a), mintSibling(c, b)]);
  const state = { model: initialModel(size), real: { c, recipes, keys: new Map([['A1', a], ['A2', a2], ['B1', b], ['B2', b2]]) } };
  // The initial state is observed like any other: fresh workspaces list no block.
  await listEverywhere(state.model, state.real, 'initial check');
  return state;
}

// --- observing replies ----------------------------------------------------------------------------------

/** A reply in a few words, for failure messages (never a header: no key). */
function brief(res: WireResponse): string {
  const msg = finalMessage(res);
  if (res.status === 401) return 'HTTP 401';
  if (isObject(msg?.error)) return `HTTP ${res.status}, JSON-RPC error ${msg.error.code}: ${String(msg.error.message).slice(0, 120)}`;
  if (isObject(msg?.result)) return msg.result.isError === true ? `HTTP ${res.status}, tool error: ${textOf(msg.result).slice(0, 160)}` : `HTTP ${res.status}, a result`;
  return `HTTP ${res.status}, no JSON-RPC reply (${res.text.slice(0, 80)})`;
}

/** A result that is not a tool error, on a 2xx. */
function accepted(res: WireResponse): boolean {
  const msg = finalMessage(res);
  return res.status >= 200 && res.status < 300 && isObject(msg?.result) && msg.result.isError !== true;
}

/** The ids a list result holds (or the items themselves, as JSON, when they have none). */
function listedIds(result: any): string[] | undefined {
  const items = listedItems(result);
  return items?.map((item: unknown) => (isObject(item) && item.id !== undefined ? String(item.id) : JSON.stringify(item)));
}

function labelOf(m: Model, id: string): string {
  for (const w of Object.values(m.ws)) {
    const b = w.blocks.find((x) => x.id === id);
    if (b) return b.label;
  }
  return `a block from outside this run (${id.slice(0, 40)})`;
}

// --- commands --------------------------------------------------------------------------------------------

type Command = fc.AsyncCommand<Model, Real>;

/**
 * A command: generated arguments, resolved against the model when it runs (a key or block "pick" is an
 * index modulo what exists), so any sequence is meaningful. `toString` names what ran, with key and block
 * names, never a key.
 */
abstract class ModelCommand implements Command {
  /** What the last run did, in words (set while running). */
  protected ran = '';
  abstract check(m: Readonly<Model>): boolean;
  abstract run(m: Model, r: Real): Promise<void>;
  /** Before any run: the command with its raw picks. */
  protected abstract describe(): string;
  toString(): string {
    return this.ran || this.describe();
  }
  /** fast-check clones commands between runs of a shrunk sequence: each clone describes its own run. */
  [fc.cloneMethod](): this {
    return Object.assign(Object.create(Object.getPrototypeOf(this) as object) as this, this, { ran: '' });
  }
  /** Starts a step: numbers it, records what runs, and returns the prefix of its failure messages. */
  protected begin(m: Model, words: string): string {
    m.step += 1;
    this.ran = words;
    return `step ${m.step} (${words})`;
  }
}

function keyOf(w: ModelWorkspace, pick: number): ModelKey {
  return w.keys[pick % w.keys.length]!;
}

function keyName(k: ModelKey): string {
  return `key ${k.label}${k.live ? '' : ' (revoked)'}`;
}

function secretOf(r: Real, k: ModelKey): string {
  const secret = r.keys.get(k.label);
  if (!secret) throw new Error(`model: no key ${k.label}`);
  return secret;
}

/** "Invalid or expired tokens MUST receive a HTTP 401 response": a revoked key gets 401 and never a result. */
function expectRevoked(r: Real, step: string, res: WireResponse): void {
  const msg = finalMessage(res);
  r.c.verify(res.status === 401 && msg?.result === undefined,
    `${step}: the key was revoked, so the call gets HTTP 401 and no result (auth-revoked-key-401)`, 'HTTP 401', brief(res));
}

/** A live key of the workspace: refused with 401 means revoking a sibling revoked it too. */
function expectLive(r: Real, w: ModelWorkspace, k: ModelKey, step: string, res: WireResponse): void {
  const revoked = w.keys.filter((x) => !x.live).map((x) => x.label);
  r.c.verify(res.status !== 401,
    revoked.length > 0
      ? `${step}: key ${k.label} was never revoked; revoking ${revoked.join(', ')} of the same workspace must leave it working, since revocation is per place (model-revocation-per-key)`
      : `${step}: key ${k.label} is live and is refused with 401`,
    'a reply other than 401', brief(res));
}

class CreateBlocks extends ModelCommand {
  /** `count` blocks at once, or 'fill': one more than the cap leaves room for. */
  constructor(readonly ws: WsName, readonly keyPick: number, readonly count: number | 'fill') {
    super();
  }
  protected describe(): string {
    return `create ${this.count === 'fill' ? 'blocks past the cap' : `${this.count} block(s)`} in ${this.ws} with key pick ${this.keyPick}`;
  }
  /** A revoked key's create is refused at once; any other streams. */
  check(m: Readonly<Model>): boolean {
    return m.streamingLeft > 0 || !keyOf(m.ws[this.ws], this.keyPick).live;
  }
  async run(m: Model, r: Real): Promise<void> {
    const w = m.ws[this.ws];
    const k = keyOf(w, this.keyPick);
    const n = this.count === 'fill' ? Math.max(1, m.cap - w.blocks.length + 1) : this.count;
    const what = n === 1 ? 'create a block' : this.count === 'fill' ? `create ${n} blocks at once (past the cap of ${m.cap})` : `create ${n} blocks at once`;
    const step = this.begin(m, `${what} in ${this.ws} with ${keyName(k)}`);
    if (k.live) m.streamingLeft -= 1;
    const secret = secretOf(r, k);
    const replies = await Promise.all(Array.from({ length: n }, async () => {
      const vars: Record<string, unknown> = { title: `model block in ${this.ws}` };
      const res = await r.c.mcp.recipe(r.recipes.create, vars, { key: secret });
      return { res, id: vars.blockId };
    }));
    if (!k.live) {
      for (const { res } of replies) expectRevoked(r, step, res);
      this.ran += ' → 401';
      return;
    }
    for (const { res } of replies) expectLive(r, w, k, step, res);
    const room = Math.max(0, m.cap - w.blocks.length);
    const created = replies.filter(({ res }) => accepted(res));
    const refused = replies.filter(({ res }) => !accepted(res));
    // "Plan caps apply to block authoring": past the cap a create is a tool error, and no block appears.
    for (const { res } of refused) {
      r.c.verify(finalMessage(res)?.result?.isError === true && w.blocks.length + created.length >= m.cap,
        `${step}: a create is refused only past the plan's cap (${m.cap} blocks; the workspace held ${w.blocks.length}), and then as a tool error (isError)`,
        created.length + w.blocks.length >= m.cap ? 'a result with isError: true' : 'a created block', brief(res));
    }
    r.c.verify(created.length === Math.min(n, room),
      `${step}: with ${w.blocks.length} of ${m.cap} blocks, exactly ${Math.min(n, room)} of ${n} creates succeed (model-created-block-listed)`,
      Math.min(n, room), created.length);
    const labels: string[] = [];
    for (const { id } of created) {
      r.c.verify(typeof id === 'string' && id.length > 0, `${step}: the created block has an id (the profile's createBlock capture)`, 'a block id', id);
      r.c.verify(labelOf(m, id as string).startsWith('a block from outside'), `${step}: a new block gets a new id`, 'an id no block of this run has', labelOf(m, id as string));
      const label = `${this.ws}#${++w.labels}`;
      w.blocks.push({ label, id: id as string, published: undefined, by: k.label });
      labels.push(label);
    }
    const made = labels.length > 3 ? `${labels[0]}..${labels[labels.length - 1]}` : labels.join(', ') || 'none';
    this.ran += ` → ${made}${refused.length > 0 ? `, ${refused.length} refused` : ''}`;
  }
}

/** A block of the run, picked among all of them, and the key that acts on it: one of the block's workspace's keys, or of the other's. */
interface Aim { b: ModelBlock; w: ModelWorkspace; k: ModelKey }

function aim(m: Readonly<Model>, blockPick: number, own: boolean, keyPick: number): Aim | undefined {
  const all = [...m.ws.A.blocks, ...m.ws.B.blocks];
  if (all.length === 0) return undefined;
  const b = all[blockPick % all.length]!;
  const owner = m.ws.A.blocks.includes(b) ? m.ws.A : m.ws.B;
  const w = own ? owner : m.ws[other(owner.name)];
  return { b, w, k: keyOf(w, keyPick) };
}

/**
 * Publishes or unpublishes a block with a key of its workspace, or tries to with another workspace's key.
 * `toggle` flips the flag the model holds (a block of unknown state is published), so two publishes of
 * one block make the publish-then-unpublish sequences that a random flag would rarely make.
 */
class Publish extends ModelCommand {
  constructor(readonly blockPick: number, readonly own: boolean, readonly keyPick: number, readonly flag: boolean | 'toggle') {
    super();
  }
  protected describe(): string {
    return `${this.flag === 'toggle' ? 'toggle' : this.flag ? 'publish' : 'unpublish'} block pick ${this.blockPick} with ${this.own ? 'its' : 'the other'} workspace's key pick ${this.keyPick}`;
  }
  check(m: Readonly<Model>): boolean {
    return aim(m, this.blockPick, this.own, this.keyPick) !== undefined;
  }
  async run(m: Model, r: Real): Promise<void> {
    const { b, w, k } = aim(m, this.blockPick, this.own, this.keyPick)!;
    const published = !r.recipes.unpublish || (this.flag === 'toggle' ? b.published !== true : this.flag);
    const step = this.begin(m, `${published ? 'publish' : 'unpublish'} ${b.label} with ${keyName(k)}${this.own ? '' : ' (another workspace\'s block)'}`);
    const recipe = r.recipes.publish!;
    const args = { ...(fill(recipe.arguments, { blockId: b.id }) as Record<string, unknown>), ...(r.recipes.unpublish && { published }) };
    const res = await r.c.mcp.call(recipe.tool, args, { key: secretOf(r, k) });
    if (!k.live) return expectRevoked(r, step, res);
    expectLive(r, w, k, step, res);
    if (this.own) {
      r.c.verify(accepted(res), `${step}: a key of the block's workspace may publish it (model-sibling-keys-same-workspace)`, 'a result', brief(res));
      b.published = published;
    } else {
      // "A key is workspace-scoped": another workspace's block is refused, and stays as it was (the owner's lists show it).
      r.c.verify(!accepted(res), `${step}: publishing another workspace's block is refused (auth-workspace-scoped-write)`, 'a JSON-RPC error or a tool error', brief(res));
    }
  }
}

class Build extends ModelCommand {
  constructor(readonly blockPick: number, readonly own: boolean, readonly keyPick: number) {
    super();
  }
  protected describe(): string {
    return `build block pick ${this.blockPick} with ${this.own ? 'its' : 'the other'} workspace's key pick ${this.keyPick}`;
  }
  /**
   * Only a build of an own block with a live key streams; refusals come at once. In quick mode the one
   * streaming call of a run goes to the create that made the block, so builds that succeed come in deep mode.
   */
  check(m: Readonly<Model>): boolean {
    const a = aim(m, this.blockPick, this.own, this.keyPick);
    return a !== undefined && (m.streamingLeft > 0 || !this.own || !a.k.live);
  }
  async run(m: Model, r: Real): Promise<void> {
    const { b, w, k } = aim(m, this.blockPick, this.own, this.keyPick)!;
    const step = this.begin(m, `build ${b.label} with ${keyName(k)}${this.own ? '' : ' (another workspace\'s block)'}`);
    if (this.own && k.live) m.streamingLeft -= 1;
    const res = await r.c.mcp.recipe(r.recipes.build!, { blockId: b.id }, { key: secretOf(r, k) });
    if (!k.live) return expectRevoked(r, step, res);
    expectLive(r, w, k, step, res);
    if (this.own) r.c.verify(accepted(res), `${step}: a key of the block's workspace may build it (model-sibling-keys-same-workspace)`, 'a result', brief(res));
    else r.c.verify(!accepted(res), `${step}: building another workspace's block is refused (auth-workspace-scoped-write)`, 'a JSON-RPC error or a tool error', brief(res));
  }
}

const filterWords = (published: boolean | undefined) => (published === undefined ? '' : ` (published: ${published})`);

/** blocks.list with a key, with or without the `published` filter. */
function listWith(r: Real, k: ModelKey, published: boolean | undefined): Promise<WireResponse> {
  const recipe = r.recipes.list;
  // service.md: "`blocks.list` accepts a boolean argument `published`."
  const args = { ...(fill(recipe.arguments, {}) as Record<string, unknown>), ...(published !== undefined && { published }) };
  return r.c.mcp.call(recipe.tool, args, { key: secretOf(r, k) });
}

/** Compares a blocks.list reply with the model: exactly the workspace's blocks, partitioned by the filter. */
function verifyList(m: Model, r: Real, w: ModelWorkspace, k: ModelKey, published: boolean | undefined, res: WireResponse, step: string): void {
  if (!k.live) return expectRevoked(r, step, res);
  expectLive(r, w, k, step, res);
  r.c.verify(accepted(res), `${step}: blocks.list succeeds`, 'a result', brief(res));
  const ids = listedIds(finalMessage(res).result);
  r.c.verify(ids !== undefined, `${step}: blocks.list returns a list of blocks`, 'an array of blocks', brief(res));
  const listed = ids!;
  // "A key is workspace-scoped: one key carries the context of one workspace."
  const foreign = listed.filter((id) => !w.blocks.some((b) => b.id === id));
  r.c.verify(foreign.length === 0,
    `${step}: the list holds only workspace ${w.name}'s blocks (auth-workspace-scoped-read)`, `only blocks of ${w.name}`, foreign.map((id) => labelOf(m, id)));
  const twice = listed.filter((id, i) => listed.indexOf(id) !== i);
  r.c.verify(twice.length === 0, `${step}: no block is listed twice`, [], twice.map((id) => labelOf(m, id)));
  const wanted = (b: ModelBlock) => published === undefined || b.published === published;
  const missingBlocks = w.blocks.filter((b) => wanted(b) && !listed.includes(b.id));
  const missing = missingBlocks.map((b) => b.label);
  // A block another key of the workspace created: the two keys do not see the same blocks.
  const siblings = missingBlocks.some((b) => b.by !== k.label) ? ', model-sibling-keys-same-workspace' : '';
  r.c.verify(missing.length === 0,
    published === undefined
      ? `${step}: every block created in ${w.name} is listed, whichever of its keys lists (model-created-block-listed${siblings}); missing ${missing.join(', ')}`
      : `${step}: every block of ${w.name} whose published flag is ${published} is listed under published: ${published} (calls-published-filter-partitions${siblings}); missing ${missing.join(', ')}`,
    w.blocks.filter(wanted).map((b) => b.label), listed.map((id) => labelOf(m, id)));
  if (published !== undefined) {
    const wrong = w.blocks.filter((b) => b.published === !published && listed.includes(b.id)).map((b) => b.label);
    r.c.verify(wrong.length === 0, `${step}: a block whose published flag is ${!published} is not listed under published: ${published} (calls-published-filter-partitions)`, [], wrong);
    // A new block's flag is not shown: the first filtered list tells it, and later lists must agree.
    for (const b of w.blocks) if (b.published === undefined) b.published = listed.includes(b.id) ? published : !published;
  }
}

class List extends ModelCommand {
  constructor(readonly ws: WsName, readonly keyPick: number, readonly published: boolean | undefined) {
    super();
  }
  protected describe(): string {
    return `list blocks${filterWords(this.published)} with key pick ${this.keyPick} of ${this.ws}`;
  }
  check(): boolean {
    return true;
  }
  async run(m: Model, r: Real): Promise<void> {
    const w = m.ws[this.ws];
    const k = keyOf(w, this.keyPick);
    const step = this.begin(m, `list blocks${filterWords(this.published)} with ${keyName(k)}`);
    verifyList(m, r, w, k, this.published, await listWith(r, k, this.published), step);
  }
}

/** Every key of both workspaces lists blocks, with and without the filter (a few ms, all at once). */
async function listEverywhere(m: Model, r: Real, step: string): Promise<void> {
  const lists = Object.values(m.ws).flatMap((w) => w.keys.flatMap((k) => [undefined, true, false].map((published) => ({ w, k, published }))));
  const replies = await Promise.all(lists.map(({ k, published }) => listWith(r, k, published)));
  lists.forEach(({ w, k, published }, i) => {
    verifyList(m, r, w, k, published, replies[i]!, `${step}, list blocks${filterWords(published)} with ${keyName(k)}`);
  });
}

/** What the final check does, in words (printed after the sequence). */
export const FINAL_CHECK = 'then every key of A and B lists blocks (all, published: true, published: false)';

/** A look at the whole state in the middle of a sequence, like the final check after it. */
class ListEverywhere extends ModelCommand {
  protected describe(): string {
    return 'every key lists blocks';
  }
  check(): boolean {
    return true;
  }
  async run(m: Model, r: Real): Promise<void> {
    await listEverywhere(m, r, this.begin(m, 'every key of A and B lists blocks (all, published: true, published: false)'));
  }
}

/**
 * After the sequence, the same look at the whole state: a sequence needs no list command of its own to
 * show what it did.
 */
function finalCheck(m: Model, r: Real): Promise<void> {
  return listEverywhere(m, r, `final check after step ${m.step}`);
}

class MintKey extends ModelCommand {
  constructor(readonly ws: WsName) {
    super();
  }
  protected describe(): string {
    return `mint a key of ${this.ws}`;
  }
  check(m: Readonly<Model>): boolean {
    return m.ws[this.ws].keys.length < MAX_KEYS;
  }
  async run(m: Model, r: Real): Promise<void> {
    const w = m.ws[this.ws];
    const label = `${this.ws}${w.keys.length + 1}`;
    this.begin(m, `mint key ${label}`);
    // The admin settings name the workspace by any of its keys (a revoked one too).
    r.keys.set(label, await mintSibling(r.c, secretOf(r, w.keys[0]!)));
    w.keys.push({ label, live: true });
  }
}

class RevokeKey extends ModelCommand {
  constructor(readonly ws: WsName, readonly keyPick: number) {
    super();
  }
  protected describe(): string {
    return `revoke live key pick ${this.keyPick} of ${this.ws}`;
  }
  /** A workspace keeps one live key, so it stays observable (revoking a workspace's only key is auth-revoked-key-401's scenario). */
  check(m: Readonly<Model>): boolean {
    return m.ws[this.ws].keys.filter((k) => k.live).length >= 2;
  }
  async run(m: Model, r: Real): Promise<void> {
    const live = m.ws[this.ws].keys.filter((k) => k.live);
    const k = live[this.keyPick % live.length]!;
    this.begin(m, `revoke key ${k.label}`);
    await revokeKey(r.c, secretOf(r, k));
    k.live = false;
  }
}

// --- the property ----------------------------------------------------------------------------------------

/**
 * fast-check's `commands` shrinks only the commands that ran, a fact it learns by running them; walking a
 * `path` (the core's second shrinking pass, and `--replay <id>:<path>`) runs nothing on the way, so it
 * needs the record of what ran (`replayPath`) or it fails with "Unable to replay". Declaring every
 * command as ran makes the shrink tree independent of execution: commands skipped by their precondition
 * (or after the failure) stay candidates for removal, and the path alone replays. 64 x 1024 entries cover
 * any shrinking of a 37-command sequence.
 */
const EVERY_COMMAND_RAN = `${'/'.repeat(1024)}:${'/'.repeat(Math.ceil(1024 / 6))}`;

/**
 * How often each command comes. Creates and builds cost ~160 ms and a run makes at most one in quick
 * mode (further ones are skipped by their precondition, for free), so creates come often enough to happen
 * early; publishes are the cheap writes that most sequences turn on; lists mid-sequence are fewer, since
 * the final check lists with every key anyway.
 */
const WEIGHTS = { publish: 16, create: 10, revoke: 5, mint: 4, list: 3, listEverywhere: 3, build: 2 };

/** The commands of a run, as fast-check generates and shrinks them. */
export function modelCommands(recipes: Recipes, size: ModelSize): fc.Arbitrary<Iterable<Command>> {
  const ws = fc.constantFrom<WsName>('A', 'B');
  const pick = fc.nat(3);
  // A key of the block's own workspace 3 times in 4, of the other workspace otherwise (shrinks towards own).
  const own = fc.integer({ min: 0, max: 3 }).map((n) => n < 3);
  // Mostly one block, now and then 2 or 3 at once, or (1 time in 20) one more than the cap leaves room for; shrinks towards 1.
  const count = fc.integer({ min: 0, max: 19 }).map((n): number | 'fill' => (n < 12 ? 1 : n < 16 ? 2 : n < 19 ? 3 : 'fill'));
  const arbs: fc.WeightedArbitrary<Command>[] = [
    { weight: WEIGHTS.create, arbitrary: fc.tuple(ws, pick, count).map(([w, k, n]) => new CreateBlocks(w, k, n)) },
    { weight: WEIGHTS.revoke, arbitrary: fc.tuple(ws, pick).map(([w, k]) => new RevokeKey(w, k)) },
    { weight: WEIGHTS.mint, arbitrary: ws.map((w) => new MintKey(w)) },
    { weight: WEIGHTS.list, arbitrary: fc.tuple(ws, pick, fc.constantFrom(undefined, true, false)).map(([w, k, p]) => new List(w, k, p)) },
    { weight: WEIGHTS.listEverywhere, arbitrary: fc.constant(null).map(() => new ListEverywhere()) },
  ];
  if (recipes.publish) {
    // Mostly a toggle; now and then an explicit flag (publishing a published block again, and so on).
    const flag = fc.integer({ min: 0, max: 5 }).map((n): boolean | 'toggle' => (n < 4 ? 'toggle' : n === 4));
    arbs.push({ weight: WEIGHTS.publish, arbitrary: fc.tuple(pick, own, pick, flag).map(([b, o, k, f]) => new Publish(b, o, k, f)) });
  }
  if (recipes.build) arbs.push({ weight: WEIGHTS.build, arbitrary: fc.tuple(pick, own, pick).map(([b, o, k]) => new Build(b, o, k)) });
  // size 'max': lengths spread over 0..maxCommands (the default size keeps sequences under 10 commands).
  const generated = fc.commands([fc.oneof(...arbs)], { maxCommands: size.maxCommands + 1, size: 'max', replayPath: EVERY_COMMAND_RAN });
  // fast-check's shrinker always keeps the last command (it expects the failure there), but the final
  // check may fail after any of them: the last generated command is left out, so every real one can go.
  return generated.map((cmds) => new Sequence([...cmds].slice(0, -1)));
}

/** The commands of one run. */
class Sequence implements Iterable<Command> {
  constructor(private readonly commands: Command[]) {}
  [Symbol.iterator](): Iterator<Command> {
    return this.commands[Symbol.iterator]();
  }
  toString(): string {
    return showRun(this);
  }
}

/** The commands that ran, numbered like the steps of failure messages; no key appears in them. */
export function showRun(cmds: Iterable<Command>): string {
  const ran = [...cmds].filter((c) => (c as { hasRan?: boolean }).hasRan !== false).map((c, i) => `${i + 1}. ${String(c)}`);
  return `from fresh workspaces A and B (keys A1, A2 and B1, B2; ${CONFORMANCE_MAX_BLOCKS} blocks max each; every key lists, none sees a block): ${ran.join('; ') || 'no command'}; ${FINAL_CHECK}`;
}

/** The profile's recipes for the model, or not testable when one it needs is missing. */
function recipesOf(c: CheckContext): Recipes {
  const { calls, streaming } = c.target.profile;
  const create = calls.createBlock ?? c.notTestable(c.target.profile.gaps?.createBlock ?? `the profile "${c.target.profile.name}" has no createBlock call`);
  if (!create.capture?.blockId) c.notTestable('the profile\'s createBlock call captures no blockId');
  const list = calls.listBlocks ?? c.notTestable(`the profile "${c.target.profile.name}" has no listBlocks call`);
  const publish = calls.publishBlock;
  const build = streaming['blocks.build'];
  if (!publish) c.observe('the profile has no publishBlock call: the model neither publishes nor unpublishes');
  if (!build) c.observe('the profile has no blocks.build recipe: the model does not build');
  // Unpublishing needs the recipe's flag argument (the description shows only blocks.list's).
  const unpublish = publish !== undefined && 'published' in publish.arguments;
  if (publish && !unpublish) c.observe('the publishBlock call takes no published flag: the model only publishes');
  return { create, list, publish, build, unpublish };
}

/**
 * The model-based check: random command sequences from fresh workspaces, each step compared with the
 * model, the initial and the final state looked at with every key.
 */
export async function checkServiceModel(c: CheckContext): Promise<void> {
  if (!canAdminister(c)) {
    c.notTestable('every run starts from two fresh workspaces and mints and revokes keys: that needs the deployment\'s admin settings, which only the embedded target offers the harness');
  }
  const recipes = recipesOf(c);
  const size = c.target.property.timeLimitMs > 0 ? QUICK_SIZE : DEEP_SIZE;
  await c.property({
    id: MODEL_PROPERTY_ID,
    arbitrary: modelCommands(recipes, size),
    predicate: async (cmds) => {
      let state: { model: Model; real: Real } | undefined;
      await fc.asyncModelRun(async () => (state = await setup(c, recipes, size)), cmds);
      await finalCheck(state!.model, state!.real);
    },
    show: showRun,
  });
}
