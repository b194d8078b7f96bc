import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PACKAGE_ROOT } from './package-root.js';

/**
 * How a person runs the commands: through the package's one executable (`mcp-canvas-harness conformance ...`,
 * src/cli/bin.ts) or, in a checkout, through the project's npm scripts (`npm run conformance -- ...`). Usage
 * texts and the replay commands printed beside a failure say it the way the person typed it.
 */

/** The package's executable, as `npx` and an installed package's PATH know it. */
export const BIN = 'mcp-canvas-harness';

/** The npm script of each subcommand of the executable. */
export const SUBCOMMANDS = {
  conformance: 'conformance',
  load: 'load',
  k6: 'load:k6',
  probe: 'probe:rate-limit',
  capacity: 'capacity',
  reference: 'reference',
  'stdio-proxy': 'stdio-proxy',
  'setup-interop': 'setup-interop',
} as const;

export type Subcommand = keyof typeof SUBCOMMANDS;
type Script = (typeof SUBCOMMANDS)[Subcommand];

let viaBin = false;

/** Said by the executable before it loads a command: from then on its texts name the executable. */
export function invokedThroughBin(): void {
  viaBin = true;
}

/** Whether the executable runs this process (an install's `npx mcp-canvas-harness ...`), not an npm script. */
export function throughBin(): boolean {
  return viaBin;
}

/** The words that run `script` with arguments after them: `mcp-canvas-harness probe` or `npm run probe:rate-limit --`. */
export function invocation(script: Script): string {
  return viaBin ? binWords(script) : `npm run ${script} --`;
}

function binWords(script: Script): string {
  const sub = (Object.keys(SUBCOMMANDS) as Subcommand[]).find((s) => SUBCOMMANDS[s] === script)!;
  return `${BIN} ${sub}`;
}

/**
 * The words of a replay line, to be pasted where the person is. A checkout (its sources beside dist/) runs
 * `npm run conformance -- ...`; an installed package has no such script, and its executable is on no PATH
 * outside npm: `npx mcp-canvas-harness conformance ...` (issue 36: the bare name said "command not found").
 */
export function replayInvocation(script: Script, root: string = PACKAGE_ROOT, throughBin = viaBin): string {
  if (!throughBin || existsSync(join(root, 'src', 'cli', 'bin.ts'))) return `npm run ${script} --`;
  return `npx ${binWords(script)}`;
}

/**
 * A path the person typed, resolved where they typed it. `npm run <script>` runs its command in the package's
 * folder and says where it was called from in INIT_CWD: `npm run conformance -- --report-dir out` from
 * another folder means that folder's `out`, not the harness's.
 */
export function callerPath(path: string, env: NodeJS.ProcessEnv = process.env): string {
  const viaScript = (Object.values(SUBCOMMANDS) as string[]).includes(env.npm_lifecycle_event ?? '') && env.INIT_CWD;
  return resolve(viaScript ? env.INIT_CWD! : process.cwd(), path);
}

/**
 * The report folder: `--report-dir`, else HARNESS_REPORT_DIR (the harness image sets /reports, its mounted
 * folder), else the command's default; a relative one is the caller's.
 */
export function reportDirOption(given: string | undefined, fallback: string, env: NodeJS.ProcessEnv = process.env): string {
  return callerPath(given ?? (env.HARNESS_REPORT_DIR || fallback), env);
}
