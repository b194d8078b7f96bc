// @ts-check
// Loaded with `--import` before tsx wherever the conformance command starts (package.json's "conformance",
// src/cli/spawn-conformance.ts, the processes of src/cli/conformance-pool.ts). Under Node 20 tsx's module
// hooks run on a thread of their own, and every module loaded once they are registered costs a round trip
// to it: vitest's, the SDK's and undici's module graphs cost about 1 s of CPU per command that way. These
// packages hold no TypeScript, so they load here first, natively, and the harness's imports of them find
// them in the module cache. test/harness/conformance-preload.test.ts holds the list to the command's imports.
export const PACKAGES = [
  '@modelcontextprotocol/server',
  'ajv',
  'ajv-formats',
  'ajv/dist/2020.js',
  'better-sqlite3',
  'cron-parser',
  'eventsource-parser',
  'fast-check',
  'mailparser',
  'nodemailer',
  'smtp-server',
  'structured-headers',
  'undici',
  'vitest/node',
];

await Promise.all(PACKAGES.map((name) => import(name)));
