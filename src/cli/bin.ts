#!/usr/bin/env node
/**
 * The package's one executable: `mcp-canvas-harness <command> [options]`. Each command is the module its npm
 * script runs, loaded after its name is taken off the command line, so it reads the same options and exits
 * the same way whichever door it came through.
 */
import { packageInfo } from '../kit/package-root.js';
import { BIN, invokedThroughBin, SUBCOMMANDS, type Subcommand } from '../kit/invocation.js';

/** Each command's module, from dist/. */
const MODULES: Record<Subcommand, string> = {
  conformance: './conformance.js',
  load: './load.js',
  k6: './load-k6.js',
  probe: './probe-rate-limit.js',
  capacity: './capacity.js',
  reference: '../../service/reference-server/main.js',
  'stdio-proxy': '../../service/reference-server/stdio-proxy/main.js',
  'setup-interop': './setup-interop.js',
};

const SUMMARIES: Record<Subcommand, string> = {
  conformance: 'judge a deployment (or the embedded reference server) against the requirement catalog; writes reports',
  load: 'stateless POST throughput and latency with autocannon, gated by thresholds',
  k6: 'the same load with k6 (a k6 on PATH, or one built with go install)',
  probe: 'find a deployment\'s real rate limits per key: sustained rate, burst, Retry-After, isolation',
  capacity: 'the highest rate each scenario holds within an SLO, and which bound it met (SLO, rate limit, generator, cap)',
  reference: 'start the reference implementation of the service',
  'stdio-proxy': 'MCP over stdio in, the service\'s Streamable HTTP out',
  'setup-interop': 'install the interop matrix\'s Python and Go SDK clients into a per-user folder the harness finds',
};

const USAGE = `Usage: ${BIN} <command> [options]
       ${BIN} <command> --help
       ${BIN} --version

Commands
${(Object.keys(SUMMARIES) as Subcommand[]).map((c) => `  ${c.padEnd(13)} ${SUMMARIES[c]}`).join('\n')}

Each command is also an npm script of a checkout (${Object.values(SUBCOMMANDS).map((s) => `npm run ${s}`).slice(0, 2).join(', ')}...).
Exit status: 0 the verdict holds, 1 it fails, 2 anything else (bad usage, an unreachable target, an error
inside the harness); 130 and 143 after SIGINT and SIGTERM.`;

const [command, ...rest] = process.argv.slice(2);
if (command === '--version' || command === '-v' || (command !== undefined && Object.hasOwn(MODULES, command) && rest.length === 1 && rest[0] === '--version')) {
  console.log(`${BIN} ${packageInfo().version}`);
} else if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
  console.log(USAGE);
} else if (!Object.hasOwn(MODULES, command)) {
  process.stderr.write(`error: unknown command "${command}"; the commands: ${Object.keys(MODULES).join(', ')}\n\n${USAGE}\n`);
  process.exitCode = 2;
} else {
  // The command reads process.argv.slice(2) as its own options.
  process.argv.splice(2, 1);
  invokedThroughBin();
  try {
    await import(MODULES[command as Subcommand]);
  } catch (err) {
    // A command that cannot load is no verdict: exit 2 with one line, as main() ends every command.
    process.stderr.write(`error: the ${command} command could not load: ${(err as Error).message}\n`);
    process.exit(2);
  }
}
