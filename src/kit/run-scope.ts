import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Per-run singletons. A conformance run is one function in one process, and a process may hold several runs
 * at once (the project's tests run them side by side): whatever a run keeps (its pacer, what it spent, the
 * keys it learnt, work its checks share) lives in the run's scope, found through the async context of the
 * code that asks. Code outside any run (a load command, a unit test) gets the process's own scope.
 *
 * Each module declares the slots it keeps (`slot(name, make)`); a slot's value is made on first use in a scope.
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

const MEMO = slot('memo', () => new Map<string, unknown>());

/**
 * What the checks of a run share, made once per run by the first check that asks (the bootstrap suite's one
 * bootstrap, the streaming suite's round of streams): never across runs, whatever the process holds.
 */
export function runOnce<T>(key: string, make: () => T): T {
  const memo = scoped(MEMO);
  if (!memo.has(key)) memo.set(key, make());
  return memo.get(key) as T;
}
