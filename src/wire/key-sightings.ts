import { AsyncLocalStorage } from 'node:async_hooks';
import { SpellingMatcher } from '../kit/key-spellings.js';
import type { Exchange } from './exchange.js';

/*
 * The keys a run holds, and the replies that carried one. Every recorder of the service's replies (the wire
 * client, the in-process SDK's recording fetch, the interop matrix's recording proxy) hands each reply here
 * before redacting it: a bootstrap reply's `apiKey` becomes a known key (so every later record and the
 * report door redact it in every spelling), and a reply that carries a known key in any spelling
 * (src/kit/key-spellings.ts) is noted as a sighting, naming the key's role and the spelling, never the key.
 *
 * Each run keeps its own ledger (src/engine/run-state.ts): the report door then knows every key the
 * run held, and `auth-key-never-echoed` sees every sighting (src/judging/key-echoes.ts). Keys never go into a record.
 */

/** A reply of the service that carried a key the run holds. */
export interface KeySighting {
  /** The check whose request got the reply, or the part of the run outside any check. */
  by: string;
  /** `POST http://127.0.0.1:4000/api/mcp/v1 (tools/call blocks.list)`, secrets redacted by the caller. */
  request: string;
  status: number;
  /** Where in the reply, and what: `the body: the run's key, spelt as base64 of its secret part, upper-cased`. */
  found: string[];
  /** The exchange as recorded (redacted): the evidence of the failure. */
  exchange?: Exchange;
}

/** What the run's replies showed: the sightings, and how many replies of the target were looked through. */
export interface ReplyInspection {
  sightings: KeySighting[];
  /** Sightings beyond those kept with their evidence. */
  sightingsLeftOut: number;
  /** Replies of the target inspected. */
  inspected: number;
}

/** The target a ledger watches: its origins, and the keys it was given. */
export interface LedgerTarget {
  baseUrl: string;
  mcpUrl: string;
  apiKey?: string;
  otherKey?: string;
  revokedKey?: string;
  /** The harness's own mail sink the target mails to: the claim mail is a reply of the target's too. */
  mailboxUrl?: string;
}

/** Sightings kept with their exchange per run; the rest are counted. */
const KEPT_SIGHTINGS = 20;

const BOOTSTRAP_PATH = '/api/agent/bootstrap';

const checkScope = new AsyncLocalStorage<string>();

/** The check whose request is being answered, as the run's ledgers name it ("the check \"...\""), if any. */
export function currentCheck(): string | undefined {
  return checkScope.getStore();
}

/** Runs `body` as the check `name`: the replies its requests get are attributed to it. */
export function inCheck<T>(name: string, body: () => T): T {
  return checkScope.run(`the check "${name}"`, body);
}

export class KeyLedger {
  /** Key → its role. */
  private readonly keys = new Map<string, string>();
  private readonly secrets = new Set<string>();
  private readonly origins = new Set<string>();
  private sightings: KeySighting[] = [];
  private sightingsLeftOut = 0;
  private inspected = 0;
  /** The matcher of the keys known at `version`: built again only when it changes. */
  private matcher: { version: number; keys: string[]; m: SpellingMatcher } | undefined;
  /** Counts the changes to the known keys. */
  private version = 0;
  private redactionList: string[] | undefined;

  reset(): void {
    this.keys.clear();
    this.secrets.clear();
    this.origins.clear();
    this.sightings = [];
    this.sightingsLeftOut = 0;
    this.inspected = 0;
    this.changed();
  }

  /** Watches `target`: its origins are where replies are judged, its keys are known (once per run: the ledger is the run's). */
  configure(target: LedgerTarget): void {
    for (const url of [target.baseUrl, target.mcpUrl, ...(target.mailboxUrl ? [target.mailboxUrl] : [])]) {
      try {
        this.origins.add(new URL(url).origin);
      } catch {
        // not a URL (a stdio-only target): nothing of it is fetched
      }
    }
    // The target's keys keep their roles, though a bootstrap reply (the url target's) may have taught them first.
    const roles: [string | undefined, string][] = [[target.apiKey, 'the run\'s key'], [target.otherKey, 'the run\'s other key'], [target.revokedKey, 'the run\'s revoked key']];
    for (const [key, role] of roles) {
      if (!key || this.keys.get(key) === role) continue;
      this.keys.set(key, role);
      this.changed();
    }
  }

  learnKey(key: string, role: string): void {
    if (!key || this.keys.has(key)) return;
    this.keys.set(key, role);
    this.changed();
  }

  learnSecret(value: string): void {
    if (!value || this.secrets.has(value) || this.keys.has(value)) return;
    this.secrets.add(value);
    this.changed();
  }

  /** Every key and secret known to this run, for redaction (the same array until one is learnt). */
  redaction(): string[] {
    return (this.redactionList ??= [...this.keys.keys(), ...this.secrets]);
  }

  /** A bootstrap reply's `apiKey` becomes a known key; returns the keys this reply minted. */
  learnFromReply(url: string, method: string, status: number, json: unknown): string[] {
    if (method !== 'POST' || status < 200 || status >= 300 || !isBootstrap(url)) return [];
    const key = (json as { apiKey?: unknown } | undefined)?.apiKey;
    if (typeof key !== 'string' || !key) return [];
    this.learnKey(key, this.keys.get(key) ?? 'a key the run bootstrapped');
    return [key];
  }

  /**
   * Notes whether a reply of the target carried a known key (a key the reply minted, or the request itself
   * sent in its body, aside), and returns the sighting: the recorder's caller may judge its own replies.
   */
  inspect(reply: InspectedReply): KeySighting | undefined {
    if (!this.watches(reply.url)) return undefined;
    this.inspected++;
    if (this.matcher?.version !== this.version) {
      const keys = [...this.keys.keys()];
      this.matcher = { version: this.version, keys, m: new SpellingMatcher(keys) };
    }
    const { keys, m } = this.matcher;
    if (keys.length === 0) return undefined;
    // A reply repeating what the request carried in its body (a tool echoing its arguments) shows nothing new.
    const sent = new Set(reply.requestBody ? m.find(reply.requestBody).map((x) => x.owner) : []);
    const found: string[] = [];
    const minted = new Set((reply.minted ?? []).map((k) => keys.indexOf(k)));
    const look = (where: string, text: string | undefined, mintedToo = true) => {
      const hit = text ? m.find(text).find((x) => !sent.has(x.owner) && (mintedToo || !minted.has(x.owner))) : undefined;
      if (hit) found.push(`${where}: ${this.keys.get(keys[hit.owner]!)}, spelt as ${hit.spelling.form}${hit.casing === 'as is' ? '' : `, ${hit.casing}`}`);
    };
    for (const [name, value] of Object.entries(reply.headers)) look(`header ${name}`, `${name}: ${value}`);
    if (reply.events) reply.events.forEach((e, i) => look(`SSE event ${i + 1}`, e.data));
    // "The plaintext key is displayed once": the minting reply is that once (its parts beside apiKey too), but
    // not a link it hands on (its claimUrl, mailed to the human too): in a link the key is shown again.
    else if (minted.size === 0) look('the body', reply.body);
    else {
      look('the body', reply.body, false);
      if (found.length === 0) look('a link in the body', linksOf(reply.body));
    }
    if (found.length === 0) return undefined;
    const exchange = reply.exchange ? JSON.parse(JSON.stringify(reply.exchange)) as Exchange : undefined;
    const sighting: KeySighting = { by: reply.by ?? checkScope.getStore() ?? OUTSIDE_CHECKS, request: reply.request, status: reply.status, found, ...(exchange && { exchange }) };
    if (this.sightings.length < KEPT_SIGHTINGS) this.sightings.push(sighting);
    else this.sightingsLeftOut++;
    return sighting;
  }

  /** The sightings and the count of replies inspected since the last take, forgotten as they are taken. */
  take(): ReplyInspection {
    const taken: ReplyInspection = { sightings: this.sightings, sightingsLeftOut: this.sightingsLeftOut, inspected: this.inspected };
    this.sightings = [];
    this.sightingsLeftOut = 0;
    this.inspected = 0;
    return taken;
  }

  private watches(url: string): boolean {
    try {
      return this.origins.has(new URL(url).origin);
    } catch {
      return false;
    }
  }

  private changed(): void {
    this.version++;
    this.redactionList = undefined;
  }
}

/** The http(s) links a bootstrap reply hands on (its claimUrl, any URL-valued member), one a line. */
function linksOf(body: string | undefined): string | undefined {
  try {
    const json = JSON.parse(body ?? '') as unknown;
    if (!json || typeof json !== 'object' || Array.isArray(json)) return undefined;
    return Object.values(json).filter((v): v is string => typeof v === 'string' && /^https?:\/\//i.test(v)).join('\n');
  } catch {
    return undefined;
  }
}

/** Who sent a request made outside every check (revision detection, profile derivation, the interop matrix's setup). */
export const OUTSIDE_CHECKS = 'the run itself, outside any check';

export interface InspectedReply {
  url: string;
  /** The request in a line, secrets redacted. */
  request: string;
  requestBody?: string;
  status: number;
  headers: Record<string, string>;
  body?: string;
  events?: { data: string }[];
  /** Keys this very reply minted: the reply displays them, but the links it hands on may not hold them. */
  minted?: string[];
  /** The recorded exchange, once its response is recorded (redacted). */
  exchange?: Exchange;
  /** Who sent it, when not the check in scope. */
  by?: string;
}

function isBootstrap(url: string): boolean {
  try {
    return new URL(url).pathname.endsWith(BOOTSTRAP_PATH);
  } catch {
    return false;
  }
}


/** `POST <url> (tools/call <name>)`: a request in a line, for a sighting. */
export function requestLine(method: string, url: string, body: string | undefined): string {
  let what = '';
  try {
    const msg = body ? JSON.parse(body) as { method?: unknown; params?: { name?: unknown } } : undefined;
    if (typeof msg?.method === 'string') what = ` (${msg.method}${typeof msg.params?.name === 'string' ? ` ${msg.params.name}` : ''})`;
  } catch {
    // not JSON-RPC
  }
  return `${method} ${url}${what}`;
}
