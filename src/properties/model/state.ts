import type { CheckContext } from '../../engine/check.js';
import type { CallRecipe } from '../../profile/profile.js';

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
 *
 * This file holds the model's state; command.ts the base of every command, then one file per command
 * (create-blocks, publish, build, list, list-everywhere, mint-key, revoke-key); observe.ts what they compare
 * with the model; commands.ts the generated sequences; run.ts the check that runs them.
 */

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
export const MAX_KEYS = 4;

export type WsName = 'A' | 'B';
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

/** Two workspaces of two keys each, no block. */
export function initialModel(size: ModelSize): Model {
  const ws = (name: WsName): ModelWorkspace => ({ name, keys: [{ label: `${name}1`, live: true }, { label: `${name}2`, live: true }], blocks: [], labels: 0 });
  return { ws: { A: ws('A'), B: ws('B') }, cap: CONFORMANCE_MAX_BLOCKS, streamingLeft: size.maxStreaming, step: 0 };
}

/** A key of the workspace: a generated pick, modulo the keys it has. */
export function keyOf(w: ModelWorkspace, pick: number): ModelKey {
  return w.keys[pick % w.keys.length]!;
}

/** A key as steps name it: its label, never its plaintext. */
export function keyName(k: ModelKey): string {
  return `key ${k.label}${k.live ? '' : ' (revoked)'}`;
}

/** The plaintext of a key the model names (never printed). */
export function secretOf(r: Real, k: ModelKey): string {
  const secret = r.keys.get(k.label);
  if (!secret) throw new Error(`model: no key ${k.label}`);
  return secret;
}

/** The model's name of a block id (A#1), or what it is when the run did not create it. */
export function labelOf(m: Model, id: string): string {
  for (const w of Object.values(m.ws)) {
    const b = w.blocks.find((x) => x.id === id);
    if (b) return b.label;
  }
  return `a block from outside this run (${id.slice(0, 40)})`;
}

/** A block of the run, picked among all of them, and the key that acts on it: one of the block's workspace's keys, or of the other's. */
export interface Aim { b: ModelBlock; w: ModelWorkspace; k: ModelKey }

export function aim(m: Readonly<Model>, blockPick: number, own: boolean, keyPick: number): Aim | undefined {
  const all = [...m.ws.A.blocks, ...m.ws.B.blocks];
  if (all.length === 0) return undefined;
  const b = all[blockPick % all.length]!;
  const owner = m.ws.A.blocks.includes(b) ? m.ws.A : m.ws.B;
  const w = own ? owner : m.ws[other(owner.name)];
  return { b, w, k: keyOf(w, keyPick) };
}
