import { ModelCommand } from './command.js';
import { accepted, expectLive, expectRevoked } from './observe.js';
import { aim, keyName, secretOf, type Model, type Real } from './state.js';

/** Builds a block (a streaming call) with a key of its workspace, or tries to with another workspace's key. */
export class Build extends ModelCommand {
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
    const res = await r.c.mcp.recipe(r.recipes.build!, { blockId: b.id }, { key: secretOf(r, k), refusal: !k.live });
    if (!k.live) return expectRevoked(r, step, res);
    expectLive(r, w, k, step, res);
    if (this.own) r.c.verify(accepted(res), `${step}: a key of the block's workspace may build it (model-sibling-keys-same-workspace)`, 'a result', r.c.brief(res));
    else r.c.verify(!accepted(res), `${step}: building another workspace's block is refused (auth-workspace-scoped-write)`, 'a JSON-RPC error or a tool error', r.c.brief(res));
  }
}
