import { ModelCommand } from './command.js';
import { listEverywhere } from './observe.js';
import type { Model, Real } from './state.js';

/** A look at the whole state in the middle of a sequence, like the final check after it. */
export class ListEverywhere extends ModelCommand {
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
