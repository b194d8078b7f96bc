// @ts-check
// `node --import <this file> --import tsx <entry>` (src/kit/tsx-imports.ts): the packages the entry point
// imports, loaded before tsx registers its hooks. Under Node 20 tsx's module hooks run on a thread of their
// own, and every module loaded once they are registered costs a round trip to it: vitest's, the SDK's and
// undici's module graphs cost about 1 s of CPU per conformance command that way, a few tenths per load run or
// reference server. These packages hold no TypeScript, so they load here first, natively, and the entry's
// imports of them find them in the module cache. An entry not listed loads as with `--import tsx` alone.
// test/harness/preload.test.ts holds each list to its entry's static imports.
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const LOAD = ['ajv-formats', 'ajv/dist/2020.js', 'cron-parser', 'eventsource-parser', 'structured-headers', 'undici'];
const REFERENCE = ['@modelcontextprotocol/server', 'ajv-formats', 'ajv/dist/2020.js', 'better-sqlite3', 'cron-parser', 'nodemailer'];
const CONFORMANCE = [
  '@modelcontextprotocol/server', 'ajv', 'ajv-formats', 'ajv/dist/2020.js', 'better-sqlite3', 'cron-parser', 'eventsource-parser',
  'fast-check', 'mailparser', 'nodemailer', 'smtp-server', 'structured-headers', 'undici', 'vitest/node',
];

/** @type {Record<string, string[]>} entry point (relative to the repository) -> the packages it imports statically */
export const PRELOADS = {
  'src/cli/conformance.ts': CONFORMANCE,
  'src/cli/conformance-pool-child.ts': CONFORMANCE,
  'load/cli/load.ts': [...LOAD, 'autocannon'],
  'load/cli/load-k6.ts': LOAD,
  'load/cli/probe-rate-limit.ts': LOAD,
  'load/reference-child.ts': REFERENCE,
  'fixtures/reference-server/main.ts': REFERENCE,
};

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const entry = process.argv[1] ? relative(ROOT, resolve(process.argv[1])) : '';
await Promise.all((PRELOADS[entry] ?? []).map((name) => import(name)));
