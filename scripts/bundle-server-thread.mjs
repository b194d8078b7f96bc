// Build step (npm run build, after tsc): the embedded reference server's thread as one file. Its program imports
// some 400 modules (the MCP server SDK, zod, nodemailer, smtp-server...); node resolves and loads each on every
// start, about a tenth of a second more than one bundled file takes, on the path of every embedded run.
// better-sqlite3 (a native addon) and mailparser (loaded when a mail is first read) stay outside, loaded from
// node_modules as usual. Not shipped: the package carries its output, dist/src/targets/embedded-server.bundle.js.
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/src/targets/embedded-server.worker.js'],
  outfile: 'dist/src/targets/embedded-server.bundle.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3', 'mailparser'],
  // The CommonJS packages inside call require (node's built-ins, JSON files): an ES module has none of its own.
  banner: { js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);" },
  logLevel: 'warning',
});
