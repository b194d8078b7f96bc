/**
 * `mcp-canvas-harness setup-interop`: installs the interop matrix's Python and Go SDK clients into a folder
 * that outlives the package (an install's own folder is wiped by the next `npm ci`), where the harness finds
 * them (src/interop/tools.ts). The checkout's `bash scripts/setup-interop.sh` does the same into `.tools`.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, invocation } from '../kit/invocation.js';
import { CLIENTS_DIR, GO_BINARY, goPin, installDir, locate, pythonPin, userToolsDir, VENV_PYTHON } from '../interop/tools.js';

const USAGE = `Usage: ${invocation('setup-interop')}

Installs the interop matrix's non-npm clients, pinned by the package, into
  \${MCP_INTEROP_TOOLS:-\${XDG_DATA_HOME:-$HOME/.local/share}/mcp-canvas-harness/interop}
(here: ${installDir()}):
  venv/            a Python virtual environment with the mcp SDK (src/interop/clients/requirements.txt)
  bin/interop-go   the Go client, built against the pinned go-sdk (src/interop/clients/go-client/go.mod)
Does nothing for a client already installed at its pinned version. Needs python3 (3.10+) with its venv
module and Go on the PATH, and the package registries (PyPI, the Go module proxy) or their caches.

The harness looks for the clients in MCP_INTEROP_TOOLS when it is set; else in a checkout's .tools, then
in the per-user folder above.
Exit status: 0 both clients are installed, 2 a prerequisite is missing or an install failed.`;

const say = (line: string) => process.stdout.write(`setup-interop: ${line}\n`);
const problem = (line: string) => process.stderr.write(`setup-interop: ${line}\n`);
const read = (path: string) => { try { return readFileSync(path, 'utf8'); } catch { return undefined; } };
// The tools' own output goes to stderr: stdout says what this command did.
const run = (command: string, args: string[], options: SpawnSyncOptions = {}) =>
  spawnSync(command, args, { stdio: ['ignore', process.stderr, process.stderr], ...options });

function python(dir: string): boolean {
  const venv = join(dir, 'venv');
  const stamp = join(venv, '.requirements');
  if (read(stamp) === pythonPin() && run(join(dir, VENV_PYTHON), ['-c', '']).status === 0) {
    say(`python client: the pinned mcp SDK is already in ${venv}`);
    return true;
  }
  const check = spawnSync('python3', ['-c', 'import sys, ensurepip, venv; sys.exit(0 if sys.version_info >= (3, 10) else 3)'], { encoding: 'utf8' });
  if (check.error || check.status !== 0) {
    problem(`python client: needs python3 3.10 or newer with its venv module on the PATH (${check.error ? 'no python3' : check.status === 3 ? 'python3 is older than 3.10' : 'python3 has no venv/ensurepip module'}); `
      + 'on Debian or Ubuntu: sudo apt-get install python3-venv; elsewhere: https://www.python.org/downloads/');
    return false;
  }
  say(`python client: creating a virtual environment in ${venv} and installing the pinned mcp SDK from PyPI`);
  rmSync(venv, { recursive: true, force: true });
  const steps: [string, string[]][] = [
    ['python3', ['-m', 'venv', venv]],
    [join(venv, 'bin/pip'), ['install', '-q', '--disable-pip-version-check', '-r', join(CLIENTS_DIR, 'requirements.txt')]],
  ];
  for (const [command, args] of steps) {
    const r = run(command, args);
    if (r.status !== 0) {
      problem(`python client: \`${command} ${args.join(' ')}\` failed (${r.error?.message ?? `exit ${r.status}`})`);
      return false;
    }
  }
  // Written last: an install cut short is done again next time.
  writeFileSync(stamp, pythonPin());
  const version = spawnSync(join(dir, VENV_PYTHON), ['-c', 'import importlib.metadata as m; print(m.version("mcp"))'], { encoding: 'utf8' });
  say(`python client: mcp ${version.stdout.trim()} installed in ${venv}`);
  return true;
}

function go(dir: string): boolean {
  const binary = join(dir, GO_BINARY);
  const stamp = join(dir, 'bin/.interop-go.sum');
  const sdk = /modelcontextprotocol\/go-sdk\s+(\S+)/.exec(readFileSync(join(CLIENTS_DIR, 'go-client/go.mod'), 'utf8'))?.[1] ?? '?';
  if (read(stamp)?.trim() === goPin() && locate(GO_BINARY, { MCP_INTEROP_TOOLS: dir }).path) {
    say(`go client: already built against go-sdk ${sdk} at ${binary}`);
    return true;
  }
  const version = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0) {
    problem('go client: needs Go on the PATH to build it (https://go.dev/dl/; on Debian or Ubuntu: sudo apt-get install golang-go)');
    return false;
  }
  say(`go client: building it against go-sdk ${sdk} with ${version.stdout.trim()} into ${binary}`);
  mkdirSync(join(dir, 'bin'), { recursive: true });
  // Static (no cgo): the binary runs on any Linux of the architecture, an image's too.
  const r = run('go', ['build', '-trimpath', '-o', binary, '.'], { cwd: join(CLIENTS_DIR, 'go-client'), env: { ...process.env, CGO_ENABLED: '0' } });
  if (r.status !== 0) {
    problem(`go client: \`go build\` failed (${r.error?.message ?? `exit ${r.status}`})`);
    return false;
  }
  writeFileSync(stamp, `${goPin()}\n`);
  say(`go client: built at ${binary}`);
  return true;
}

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
} else if (args.length > 0) {
  process.stderr.write(`error: setup-interop takes no arguments (given: ${args.join(' ')}); its folder is MCP_INTEROP_TOOLS\n\n${USAGE}\n`);
  process.exitCode = 2;
} else {
  const dir = installDir();
  say(`installing the interop matrix's Python and Go clients into ${dir}`);
  mkdirSync(dir, { recursive: true });
  const ok = [python(dir), go(dir)].every(Boolean);
  if (ok) {
    // Say whether a run will find these, or an earlier place in the lookup shadows them.
    const shadow = [VENV_PYTHON, GO_BINARY].map((f) => locate(f).path).find((p) => p && !p.startsWith(dir));
    if (process.env.MCP_INTEROP_TOOLS) say(`done; runs find them while MCP_INTEROP_TOOLS=${dir} is set`);
    else if (shadow) say(`done; note: runs from this package use ${shadow} first (a checkout's .tools)`);
    else say(`done; \`${BIN} conformance\` runs the Python and Go rows of the interop matrix (found in ${userToolsDir()})`);
  }
  process.exitCode = ok ? 0 : 2;
}
