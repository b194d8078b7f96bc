import fc from 'fast-check';
import type { Model, Real } from './state.js';

/** A command of the model, as fast-check runs it. */
export type Command = fc.AsyncCommand<Model, Real>;

/**
 * A command: generated arguments, resolved against the model when it runs (a key or block "pick" is an
 * index modulo what exists), so any sequence is meaningful. `toString` names what ran, with key and block
 * names, never a key.
 */
export abstract class ModelCommand implements Command {
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
