import { ModelCommand } from './command.js';
import { filterWords, listWith, verifyList } from './observe.js';
import { keyName, keyOf, type Model, type Real, type WsName } from './state.js';

/** One key lists blocks, with or without the `published` filter, and the list is compared with the model. */
export class List extends ModelCommand {
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
