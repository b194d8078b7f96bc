/** One wrk run (the reference load generator, from Debian's packages): a POST with a body, parsed output. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface WrkSpec {
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  threads: number;
  /** Seconds. */
  duration: number;
}

export interface WrkResult {
  reqPerSec: number;
  requests: number;
  durationS: number;
  latencyMs: { p50: number; p90: number; p99: number };
  non2xx3xx: number;
  socketErrors: number;
  version: string;
}

const run = promisify(execFile);

/** wrk prints durations as 12.34us, 1.20ms, 1.05s or 2.00m. */
export function wrkDurationMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!m) throw new Error(`unreadable wrk duration "${text}"`);
  const value = Number(m[1]);
  return m[2] === 'us' ? value / 1000 : m[2] === 'ms' ? value : m[2] === 's' ? value * 1000 : value * 60_000;
}

export function parseWrkOutput(text: string): Omit<WrkResult, 'version'> {
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(text);
  const total = /(\d+) requests in ([\d.]+\w+),/.exec(text);
  if (!rate || !total) throw new Error(`unreadable wrk output:\n${text}`);
  const pct = (p: number) => {
    const m = new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(text);
    return m ? wrkDurationMs(m[1]!) : Number.NaN;
  };
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(text);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  return {
    reqPerSec: Number(rate[1]),
    requests: Number(total[1]),
    durationS: wrkDurationMs(total[2]!) / 1000,
    latencyMs: { p50: pct(50), p90: pct(90), p99: pct(99) },
    non2xx3xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors: socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
  };
}

/** Runs wrk with a Lua script that sets the method, headers and body; the script (holding any key) is deleted after. */
export async function runWrk(spec: WrkSpec): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'wrk-'));
  const script = join(dir, 'post.lua');
  // JSON string escapes are Lua escapes for ASCII only (Lua 5.1 has no \u).
  if (/[^\x20-\x7e]/.test(spec.body + Object.entries(spec.headers).join(''))) throw new Error('wrk bodies and headers must be printable ASCII');
  const lua = [
    'wrk.method = "POST"',
    `wrk.body = ${JSON.stringify(spec.body)}`,
    ...Object.entries(spec.headers).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`),
  ].join('\n');
  writeFileSync(script, lua, { mode: 0o600 });
  try {
    const { stdout } = await run('wrk', ['-t', String(spec.threads), '-c', String(spec.connections), '-d', `${spec.duration}s`, '--latency', '-s', script, spec.url], {
      timeout: (spec.duration + 30) * 1000,
    });
    const version = (await run('wrk', ['-v']).then((r) => r.stdout, (e: { stdout?: string }) => e.stdout ?? '')).split('\n')[0]!.trim();
    return { ...parseWrkOutput(stdout), version };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
