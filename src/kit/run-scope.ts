import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The redactor's per-run memory: the aliases of the secrets a run redacted (src/kit/scrub.ts) and the
 * spellings and matchers derived from them (src/kit/key-spellings.ts). Everything else a run keeps is in its
 * RunState, handed down explicitly (src/engine/run-state.ts). These two are reached through the async context
 * instead because `redact()` is called from some forty places, the reference service's stdio proxy and the
 * load commands among them, none of which holds a run: a run opens a scope (`inNewScope`, src/engine/run.ts),
 * so no run's aliases or secrets' spellings reach another; code outside any run gets the process's own scope.
 *
 * A slot (`slot(name, make)`) is made on first use in a scope.
 */
export interface Slot<T> {
  readonly name: string;
  readonly make: () => T;
}

export function slot<T>(name: string, make: () => T): Slot<T> {
  return { name, make };
}

type Scope = Map<Slot<unknown>, unknown>;

const storage = new AsyncLocalStorage<Scope>();
const processScope: Scope = new Map();

/** The value of `s` in the current run's scope (made on first use). */
export function scoped<T>(s: Slot<T>): T {
  const scope = storage.getStore() ?? processScope;
  if (!scope.has(s as Slot<unknown>)) scope.set(s as Slot<unknown>, s.make());
  return scope.get(s as Slot<unknown>) as T;
}

/** Sets `s` in the current run's scope (a run's budgets, decided when it starts). */
export function provide<T>(s: Slot<T>, value: T): void {
  (storage.getStore() ?? processScope).set(s as Slot<unknown>, value);
}

/** Runs `body` in a scope of its own: every slot starts afresh, and nothing of it leaks to other runs. */
export function inNewScope<T>(body: () => T): T {
  return storage.run(new Map(), body);
}

/** Whether the code asking runs inside a run's scope (not the process's own). */
export function inRunScope(): boolean {
  return storage.getStore() !== undefined;
}
