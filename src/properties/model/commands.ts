import fc from 'fast-check';
import { Build } from './build.js';
import type { Command } from './command.js';
import { CreateBlocks } from './create-blocks.js';
import { ListEverywhere } from './list-everywhere.js';
import { List } from './list.js';
import { MintKey } from './mint-key.js';
import { Publish } from './publish.js';
import { RevokeKey } from './revoke-key.js';
import { CONFORMANCE_MAX_BLOCKS, type ModelSize, type Recipes, type WsName } from './state.js';

/** The command sequences of the model, as fast-check generates, shrinks and prints them. */

/** What the final check does, in words (printed after the sequence). */
export const FINAL_CHECK = 'then every key of A and B lists blocks (all, published: true, published: false)';

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
