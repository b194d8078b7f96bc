import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './options.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Strict option parsing shared by every command of the project: an unknown option or a missing value
 * throws a UsageError (main() exits 2 with it and the usage); `-h`/`--help` prints the usage and exits 0.
 * The values are strings: src/kit/options.ts reads them as numbers, URLs, lists.
 */
export function parseCommandLine<const O extends Options>(usage: string, options: O, config: { positionals?: boolean; args?: string[] } = {}) {
  let parsed;
  try {
    parsed = parseArgs({
      args: config.args,
      options: { ...options, help: { type: 'boolean', short: 'h' } } as O & { help: { type: 'boolean'; short: 'h' } },
      strict: true,
      allowPositionals: config.positionals ?? false,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    process.exit(0);
  }
  return parsed;
}
