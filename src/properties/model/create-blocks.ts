import { finalMessage } from '../../mcp/mcp-session.js';
import { ModelCommand } from './command.js';
import { accepted, expectLive, expectRevoked } from './observe.js';
import { keyName, keyOf, labelOf, secretOf, type Model, type Real, type WsName } from './state.js';

/** Creates blocks in a workspace, one or a few at once, or past the plan's cap; a revoked key is refused. */
export class CreateBlocks extends ModelCommand {
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
      const res = await r.c.mcp.recipe(r.recipes.create, vars, { key: secret, refusal: !k.live });
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
        created.length + w.blocks.length >= m.cap ? 'a result with isError: true' : 'a created block', r.c.brief(res));
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
