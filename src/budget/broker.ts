import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allocate } from './bootstrap-plan.js';
import { emptySpent, sumSpent, type Spent } from './tally.js';
import { keyLedger, type KeyLedgerDelta } from '../wire/key-sightings.js';

export interface BrokerLimits {
  /** Bootstrap requests the suites may send (the target preparation's already deducted); undefined: no bound. */
  bootstraps?: number;
  /** Time the whole run may spend waiting out 429s, in ms. */
  waitMs: number;
  /** Hears how far each property search has got (the terminal's status line); workers report only when it is set. */
  onSearch?: (progress: SearchProgress) => void;
}

/** A property search's runs so far, as a worker reports them; `done` when the search ended. */
export interface SearchProgress { check: string; search: string; runs: number; done: boolean }

/** What the run consumed, by the broker's books: granted shares, waits, and the workers' counts. */
export interface BrokerLedger {
  spent: Spent;
  /** Bootstrap requests granted, by purpose. */
  granted: Record<string, number>;
  /** Purposes that asked for more than their share, with what they asked. */
  refused: Record<string, number>;
  waitBudgetMs: number;
  waitGrantedMs: number;
}

export interface Broker {
  url: string;
  token: string;
  ledger(): BrokerLedger;
  /**
   * Work the main process does for the suites while they run (the interop matrix): a worker asking for
   * `name` waits for it. A rejection reaches the worker as an error.
   */
  share(name: string, work: Promise<unknown>): void;
  close(): Promise<void>;
}

/**
 * The run's broker: one place in the main process that every suite worker asks before it spends the
 * deployment's scarce things (bootstraps, time waiting on 429s) and to which it reports what it sent.
 * A loopback HTTP server guarded by a random token, like the admin channel.
 */
export async function startBroker(limits: BrokerLimits): Promise<Broker> {
  const token = randomBytes(24).toString('hex');
  const shares = limits.bootstraps === undefined ? undefined : allocate(limits.bootstraps);
  const granted: Record<string, number> = {};
  const refused: Record<string, number> = {};
  let spent = emptySpent();
  let waitGrantedMs = 0;
  const shared = new Map<string, Promise<unknown>>();
  const server = createServer(async (req, res) => {
    try {
      if (req.method !== 'POST' || !authorised(req, token)) return send(res, 401, { error: 'POST with the broker token' });
      const body = JSON.parse(await readAll(req)) as Record<string, unknown>;
      if (req.url === '/permit') {
        const purpose = String(body.purpose);
        const wants = Math.max(0, Math.floor(Number(body.n) || 0));
        let n = wants;
        if (shares) {
          const left = (shares.get(purpose) ?? 0) - (granted[purpose] ?? 0);
          n = Math.min(wants, Math.max(0, left));
          if (n < wants) refused[purpose] = (refused[purpose] ?? 0) + wants - n;
        }
        granted[purpose] = (granted[purpose] ?? 0) + n;
        return send(res, 200, { granted: n, budget: limits.bootstraps ?? null });
      }
      if (req.url === '/wait') {
        const ms = Math.max(0, Number(body.ms) || 0);
        const ok = waitGrantedMs + ms <= limits.waitMs;
        if (ok) waitGrantedMs += ms;
        return send(res, 200, { granted: ok, leftMs: limits.waitMs - waitGrantedMs, budgetMs: limits.waitMs });
      }
      if (req.url === '/shared') {
        const work = shared.get(String(body.name));
        if (!work) return send(res, 404, { error: `the run shares no "${String(body.name)}"` });
        return send(res, 200, { value: await work });
      }
      if (req.url === '/search') {
        limits.onSearch?.({ check: String(body.check), search: String(body.search), runs: Number(body.runs) || 0, done: body.done === true });
        return send(res, 200, {});
      }
      // Keys a worker learnt and the replies that carried one: the report door and auth-key-never-echoed need them all.
      if (req.url === '/keys') {
        keyLedger.merge(body as Partial<KeyLedgerDelta>);
        return send(res, 200, {});
      }
      if (req.url === '/spent') {
        spent = sumSpent(spent, body as Partial<Spent>);
        return send(res, 200, {});
      }
      return send(res, 404, { error: 'unknown broker action' });
    } catch (err) {
      send(res, 400, { error: (err as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    share: (name, work) => {
      work.catch(() => {}); // awaited by whoever asks; an unasked failure is not an unhandled rejection
      shared.set(name, work);
    },
    ledger: () => ({ spent: { ...spent }, granted: { ...granted }, refused: { ...refused }, waitBudgetMs: limits.waitMs, waitGrantedMs }),
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readAll(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text || '{}';
}

function authorised(req: IncomingMessage, token: string): boolean {
  const given = Buffer.from(String(req.headers.authorization ?? ''));
  const wanted = Buffer.from(`Bearer ${token}`);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}
