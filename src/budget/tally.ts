/**
 * What a run consumed of the deployment, counted where requests leave the harness (the wire client and the
 * target preparation), in the run's own scope.
 */
export interface Spent {
  /** HTTP requests sent to the target (retries included). */
  requests: number;
  /** `POST /api/agent/bootstrap` requests, whatever their answer. */
  bootstraps: number;
  /** Bootstraps answered with a key: each created a workspace and, per the spec, sent a claim mail. */
  workspaces: number;
  /** `blocks.create` calls that returned a result that is not an error. */
  blocksCreated: number;
  /** 429 answers the harness waited out (checks of rate limiting excluded: they count their own). */
  rateLimited: number;
  /** Time spent waiting on 429s and on the client-side bucket, in ms. */
  waitedMs: number;
}

export const emptySpent = (): Spent => ({ requests: 0, bootstraps: 0, workspaces: 0, blocksCreated: 0, rateLimited: 0, waitedMs: 0 });

/** The run's counts (src/engine/run-state.ts: each run its own). */
export class Tally {
  private spent = emptySpent();

  add(delta: Partial<Spent>): void {
    for (const [k, v] of Object.entries(delta) as [keyof Spent, number][]) this.spent[k] += v;
  }

  /** Returns and resets the counts. */
  take(): Spent {
    const taken = this.spent;
    this.spent = emptySpent();
    return taken;
  }

  /** Counts one exchange: a request, a bootstrap (and the workspace it created), a block created. */
  countExchange(url: string, method: string, requestBody: string | undefined, status: number, reply: { json?: any; messages?: any[] }): void {
    this.add(exchangeSpent(url, method, requestBody, status, reply));
  }
}

export function sumSpent(a: Spent, b: Partial<Spent>): Spent {
  const out = { ...a };
  for (const [k, v] of Object.entries(b) as [keyof Spent, number][]) out[k] += v ?? 0;
  return out;
}

export const BOOTSTRAP_PATH = '/api/agent/bootstrap';

/** What one exchange spent: a request, a bootstrap (and the workspace it created), a block created. */
function exchangeSpent(url: string, method: string, requestBody: string | undefined, status: number, reply: { json?: any; messages?: any[] }): Partial<Spent> {
  const delta: Partial<Spent> = { requests: 1 };
  if (method === 'POST' && new URL(url).pathname.endsWith(BOOTSTRAP_PATH)) {
    delta.bootstraps = 1;
    if (status >= 200 && status < 300 && typeof reply.json?.apiKey === 'string') delta.workspaces = 1;
  } else if (method === 'POST' && requestBody?.includes('blocks.create') && status === 200) {
    const final = reply.messages ? reply.messages[reply.messages.length - 1] : reply.json;
    if (final?.result && final.result.isError !== true && isBlocksCreate(requestBody)) delta.blocksCreated = 1;
  }
  return delta;
}

function isBlocksCreate(body: string): boolean {
  try {
    const msg = JSON.parse(body) as { method?: unknown; params?: { name?: unknown } };
    return msg.method === 'tools/call' && msg.params?.name === 'blocks.create';
  } catch {
    return false;
  }
}
