import { mintSibling } from '../workspaces.js';
import { ModelCommand } from './command.js';
import { MAX_KEYS, secretOf, type Model, type Real, type WsName } from './state.js';

/** Mints another key of a workspace (through the embedded target's admin channel). */
export class MintKey extends ModelCommand {
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
