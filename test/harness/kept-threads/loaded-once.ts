/** How many times this module was evaluated in this thread: a kept thread evaluates it once for all its runs. */
const counts = globalThis as { keptThreadsEvaluations?: number };
export const evaluations = (counts.keptThreadsEvaluations = (counts.keptThreadsEvaluations ?? 0) + 1);
