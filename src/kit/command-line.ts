import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** A usage error: the message, then the usage text, on stderr; exit code 2. */
export function usageError(usage: string, message: string): never {
  console.error(`error: ${message}\n\n${usage}`);
  process.exit(2);
}

/**
 * Strict option parsing shared by every command of the project: an unknown option or a missing value
 * is a usage error (exit 2); `-h`/`--help` prints the usage and exits 0.
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
    usageError(usage, (err as Error).message);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    process.exit(0);
  }
  return parsed;
}
