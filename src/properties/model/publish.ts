import { fill } from '../../profile/profile.js';
import { ModelCommand } from './command.js';
import { accepted, expectLive, expectRevoked } from './observe.js';
import { aim, keyName, secretOf, type Model, type Real } from './state.js';

/**
 * Publishes or unpublishes a block with a key of its workspace, or tries to with another workspace's key.
 * `toggle` flips the flag the model holds (a block of unknown state is published), so two publishes of
 * one block make the publish-then-unpublish sequences that a random flag would rarely make.
 */
export class Publish extends ModelCommand {
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
    const res = await r.c.mcp.call(recipe.tool, args, { key: secretOf(r, k), refusal: !k.live });
    if (!k.live) return expectRevoked(r, step, res);
    expectLive(r, w, k, step, res);
    if (this.own) {
      r.c.verify(accepted(res), `${step}: a key of the block's workspace may publish it (model-sibling-keys-same-workspace)`, 'a result', r.c.brief(res));
      b.published = published;
    } else {
      // "A key is workspace-scoped": another workspace's block is refused, and stays as it was (the owner's lists show it).
      r.c.verify(!accepted(res), `${step}: publishing another workspace's block is refused (auth-workspace-scoped-write)`, 'a JSON-RPC error or a tool error', r.c.brief(res));
    }
  }
}
