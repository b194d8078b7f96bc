/**
 * The k6 driver's default launcher: one capacity step run by a local k6 process. The key goes into k6's
 * environment only (never its command line, where `ps` shows it); nothing inherited may steer k6 or the script
 * (K6_*, LOAD_*, MCP_*, CAP_*, SUMMARY_DIR); k6 is killed when the step is aborted or outlives its bound. Other
 * launchers (a k6-operator TestRun per step, say) return the same files, one pair per runner.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PACKAGE_ROOT } from '../../src/kit/package-root.js';
import { reaped } from '../../src/kit/child-reaper.js';
import { redact } from '../../src/kit/scrub.js';
import type { K6RunFiles } from './k6-step-output.js';

export const K6_STEP_SCRIPT = join(PACKAGE_ROOT, 'load', 'k6', 'capacity-step.ts');

/** One run of load/k6/capacity-step.ts for a launcher to start. */
export interface K6StepRun {
  /** The script's inputs (LOAD_SCENARIO, CAP_*): neither the target nor the key, which the launcher adds as its place requires. */
  inputs: Record<string, string>;
  /** Numbered from 1 per driver: a name for the run's files. */
  id: number;
  /** How long the run may take before it counts as hung (k6's start-up included). */
  boundMs: number;
  signal: AbortSignal;
}

export interface K6Launched {
  runners: K6RunFiles[];
  /** k6's CPU over its run, in cores, where the launcher can read it. */
  cpuCores?: number;
}

export type K6Launcher = (run: K6StepRun) => Promise<K6Launched>;

/** Output kept from k6's stdout and stderr, for the error of a run that failed. */
const TAIL_CHARS = 4000;

export interface LocalK6 {
  k6: string;
  baseUrl: string;
  apiKey: string;
  /** Where each run's files go. */
  dir: string;
  /** More `k6 run` arguments: `--execution-segment` for one runner of a distributed run, say. */
  args?: string[];
}

/** Runs each step in a k6 process on this machine, its files in `dir`. */
export function localK6(o: LocalK6): K6Launcher {
  // k6's --out takes comma-separated settings: a folder with a comma would be misread.
  if (o.dir.includes(',')) throw new Error(`k6 driver: the work folder ${o.dir} holds a comma, which k6's --out cannot take`);
  return async (run) => {
    const csv = join(o.dir, `samples-${run.id}.csv`);
    const summaryDir = join(o.dir, `run-${run.id}`);
    mkdirSync(summaryDir, { recursive: true });
    const env: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env)) if (!/^(K6_|LOAD_|MCP_|CAP_|SUMMARY_DIR$)/.test(name)) env[name] = value;
    Object.assign(env, run.inputs, {
      MCP_BASE_URL: o.baseUrl,
      MCP_API_KEY: o.apiKey,
      SUMMARY_DIR: summaryDir,
      // No anonymous usage report to Grafana from a test run.
      K6_NO_USAGE_REPORT: 'true',
    });
    // --address '': no REST API listener (parallel runs would fight over port 6565).
    const args = ['run', '--quiet', '--no-color', '--address', '', '--out', `csv=fileName=${csv},timeFormat=unix_micro`, ...(o.args ?? []), K6_STEP_SCRIPT];
    const startedAt = performance.now();
    const { code, cpuSeconds, tail, why } = await spawnK6(o.k6, args, env, run.boundMs, run.signal);
    const wallS = (performance.now() - startedAt) / 1000;
    const summary = join(summaryDir, 'capacity-step.json');
    if (why) throw new Error(`k6 driver: ${why}`);
    // 99: a threshold crossed (the script sets none; a user's options might): the samples are still whole.
    if ((code !== 0 && code !== 99) || !existsSync(summary) || !existsSync(csv)) {
      throw new Error(`k6 driver: k6 ${code === null ? 'was killed' : `exited ${code}`}${existsSync(summary) ? '' : ' without its step summary'}${tail ? `:\n${redact(tail, [o.apiKey])}` : ''}`);
    }
    return { runners: [{ csv, summary }], cpuCores: cpuSeconds / wallS };
  };
}

/** Runs k6; resolves when it exits, killed past `boundMs` or on `signal` (`why` says which). */
function spawnK6(k6: string, args: string[], env: NodeJS.ProcessEnv, boundMs: number, signal: AbortSignal): Promise<{ code: number | null; cpuSeconds: number; tail: string; why?: string }> {
  return new Promise((resolve, reject) => {
    const child = reaped(spawn(k6, args, { cwd: PACKAGE_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    let tail = '';
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-TAIL_CHARS);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let why: string | undefined;
    const kill = (reason: string) => {
      why ??= reason;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill(`k6 did not end within ${Math.round(boundMs / 1000)} s: killed`), boundMs);
    const onAbort = () => kill(`${String(signal.reason instanceof Error ? signal.reason.message : signal.reason ?? 'the step was aborted')}: k6 killed`);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    // k6's CPU, from /proc while it runs (Linux; 0 elsewhere): the generator's own load beside the step's figures.
    let cpuSeconds = 0;
    const sampler = setInterval(() => {
      try {
        const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        cpuSeconds = (Number(fields[11]) + Number(fields[12])) / 100;
      } catch {
        // gone, or not Linux
      }
    }, 200);
    const done = () => {
      clearTimeout(timer);
      clearInterval(sampler);
      signal.removeEventListener('abort', onAbort);
    };
    child.once('error', (err) => {
      done();
      reject(new Error(`k6 driver: could not start k6 (${k6}): ${err.message}`));
    });
    child.once('close', (code) => {
      done();
      resolve({ code, cpuSeconds, tail, ...(why !== undefined && { why }) });
    });
  });
}
