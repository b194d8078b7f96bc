import fc from 'fast-check';
import type { CheckContext } from '../../engine/check.js';
import { canAdminister, freshKey, mintSibling } from '../workspaces.js';
import { modelCommands, showRun } from './commands.js';
import { listEverywhere } from './observe.js';
import { DEEP_SIZE, initialModel, QUICK_SIZE, type Model, type ModelSize, type Real, type Recipes } from './state.js';

/**
 * The model-based check's runner: the profile's recipes, two fresh workspaces per run, the generated sequence run
 * against the model and the service side by side (fast-check's asyncModelRun), then a look at the whole state.
 */

/** The property's id (replay: `--replay service-model:<path>`). */
export const MODEL_PROPERTY_ID = 'service-model';

async function setup(c: CheckContext, recipes: Recipes, size: ModelSize): Promise<{ model: Model; real: Real }> {
  const [a, b] = await Promise.all([freshKey(c, 'model workspace A', 'conformance'), freshKey(c, 'model workspace B', 'conformance')]);
  const [a2, b2] = await Promise.all([mintSibling(c, a), mintSibling(c, b)]);
  const state = { model: initialModel(size), real: { c, recipes, keys: new Map([['A1', a], ['A2', a2], ['B1', b], ['B2', b2]]) } };
  // The initial state is observed like any other: fresh workspaces list no block.
  await listEverywhere(state.model, state.real, 'initial check');
  return state;
}

/**
 * After the sequence, the same look at the whole state: a sequence needs no list command of its own to
 * show what it did.
 */
function finalCheck(m: Model, r: Real): Promise<void> {
  return listEverywhere(m, r, `final check after step ${m.step}`);
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
  const size = c.settings.property.timeLimitMs > 0 ? QUICK_SIZE : DEEP_SIZE;
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
