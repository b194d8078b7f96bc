import { describe, expect, it } from 'vitest';
import { keyOption, mutantOption, seedOption, targetOption, timeoutOption } from '../../src/cli/shared-options.js';
import { parseCommandLine } from '../../src/kit/command-line.js';
import { enumOption, headerOption, listOption, numberOption, portOption, secretOption, urlOption, UsageError } from '../../src/kit/options.js';
import { HOSTILE_MUTANTS, HTTPS_MUTANTS, LOAD_MUTANTS, MUTANTS } from '../../service/mutants/index.js';

/** The UsageError `read` throws (failing the test when it throws nothing or something else). */
function usageError(read: () => unknown): string {
  try {
    read();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a UsageError, got a value');
}

describe('numberOption: plain decimal digits, then the range, in a message naming the option and the range', () => {
  const whole = { integer: true, min: 1, max: 300 } as const;

  it('reads digits, returns the fallback when the option is not given', () => {
    expect(numberOption('--duration', '42', whole)).toBe(42);
    expect(numberOption('--duration', undefined, { ...whole, fallback: 10 })).toBe(10);
    expect(numberOption('--duration', undefined, whole)).toBeUndefined();
    expect(numberOption('--rate', '2.5', { min: 0.1, max: 10 })).toBe(2.5);
    expect(numberOption('--rate', '.5', { min: 0.1, max: 10 })).toBe(0.5);
  });

  it.each([
    ['', 'an empty string is no number (Number("") is 0)'],
    [' ', 'blank'],
    ['-1', 'a sign'],
    ['+3', 'a sign'],
    ['1e3', 'an exponent'],
    ['0x10', 'hex'],
    ['Infinity', 'not finite'],
    ['NaN', 'not a number'],
    ['1.5', 'a fraction where a whole number is asked'],
    [' 5', 'surrounding space'],
  ])('refuses %j (%s) with the kind and the range', (raw) => {
    expect(usageError(() => numberOption('--duration', raw, whole))).toBe(`--duration must be a whole number from 1 to 300 (got "${raw}")`);
  });

  it('refuses a value outside the range with the range (and the unit)', () => {
    expect(usageError(() => numberOption('--duration', '0', whole))).toBe('--duration must be from 1 to 300 (got "0")');
    expect(usageError(() => numberOption('--duration', '301', { ...whole, unit: 'seconds' }))).toBe('--duration must be from 1 to 300 seconds (got "301")');
    expect(usageError(() => numberOption('--rate', '50001', { min: 1, max: 50_000 }))).toBe('--rate must be from 1 to 50000 (got "50001")');
    expect(usageError(() => numberOption('--wait', '0.5', { min: 1 }))).toBe('--wait must be of at least 1 (got "0.5")');
  });

  it('a positive number refuses 0 itself', () => {
    expect(numberOption('--p99', '0.001', { positive: true })).toBe(0.001);
    expect(usageError(() => numberOption('--rate', '0', { positive: true }))).toBe('--rate must be a positive number (got "0")');
    expect(usageError(() => numberOption('--rate', 'fast', { positive: true, max: 9 }))).toBe('--rate must be a positive number up to 9 (got "fast")');
  });

  it('a whole number beyond the safe integers is refused (it would not survive as a number)', () => {
    expect(usageError(() => numberOption('--seed', '99999999999999999999', { integer: true, min: 0 }))).toMatch(/^--seed must be a whole number/);
  });

  it('portOption: 0 (any free port) to 65535', () => {
    expect(portOption('--port', '0', 8080)).toBe(0);
    expect(portOption('--port', undefined, 8080)).toBe(8080);
    expect(usageError(() => portOption('--port', '65536', 0))).toBe('--port must be from 0 to 65535 (got "65536")');
    expect(usageError(() => portOption('--port', 'abc', 0))).toMatch(/^--port must be a whole number from 0 to 65535/);
  });
});

describe('the other option kinds', () => {
  it('urlOption: http(s) by default, or the protocols given', () => {
    expect(urlOption('--base-url', 'https://example.com/x')).toBe('https://example.com/x');
    expect(urlOption('--base-url', undefined)).toBeUndefined();
    for (const bad of ['', 'example.com', 'ftp://x', 'javascript:alert(1)']) {
      expect(usageError(() => urlOption('--base-url', bad))).toBe(`--base-url must be an http(s) URL (got "${bad}")`);
    }
    expect(usageError(() => urlOption('--upstream', 'https://x', ['http:']))).toBe('--upstream must be an http:// URL (got "https://x")');
    expect(urlOption('--smtp', 'smtp://mail:2525', ['smtp:', 'smtps:'])).toBe('smtp://mail:2525');
  });

  it("headerOption: 'Name: value', names lower-cased", () => {
    expect(headerOption('--header', ['X-Api-Key: a b', 'Accept:text/plain'])).toEqual({ 'x-api-key': 'a b', accept: 'text/plain' });
    expect(headerOption('--header', undefined)).toEqual({});
    for (const bad of ['no colon', ': value', 'Bad Name: v']) expect(usageError(() => headerOption('--header', [bad]))).toMatch(/^--header must look like 'Name: value'/);
  });

  it('listOption: comma-separated and repeatable; given but empty is an error', () => {
    expect(listOption('--only', ['a,b', ' c ', 'a'], 'requirement id')).toEqual(['a', 'b', 'c']);
    expect(listOption('--only', undefined, 'requirement id')).toBeUndefined();
    for (const empty of ['', ' , ', [] as string[], ['', ',']]) {
      expect(usageError(() => listOption('--only', empty, 'requirement id or prefix'))).toBe('--only needs at least one requirement id or prefix');
    }
  });

  it('enumOption: one of the words, all named when it is not', () => {
    expect(enumOption('--reply', 'trivial', ['trivial', 'tools-list'])).toBe('trivial');
    expect(enumOption('--reply', undefined, ['trivial', 'tools-list'])).toBeUndefined();
    expect(usageError(() => enumOption('--target', 'mars', ['embedded', 'url', 'container']))).toBe('--target must be embedded, url or container (got "mars")');
    expect(usageError(() => enumOption('--reply', '', ['trivial', 'tools-list']))).toBe('--reply must be trivial or tools-list (got "")');
  });

  it('secretOption: the option, else the environment variable; an empty variable is unset, an empty option an error', () => {
    expect(secretOption('--api-key', 'k1', 'MCP_API_KEY', { MCP_API_KEY: 'k2' })).toBe('k1');
    expect(secretOption('--api-key', undefined, 'MCP_API_KEY', { MCP_API_KEY: 'k2' })).toBe('k2');
    expect(secretOption('--api-key', undefined, 'MCP_API_KEY', { MCP_API_KEY: '' })).toBeUndefined();
    expect(usageError(() => secretOption('--api-key', '', 'MCP_API_KEY', {}))).toMatch(/^--api-key is empty/);
  });

  it('parseCommandLine: an unknown option or a missing value is a UsageError, not an exit', () => {
    expect(usageError(() => parseCommandLine('usage', { seed: { type: 'string' } }, { args: ['--bogus'] }))).toMatch(/Unknown option '--bogus'/);
    expect(usageError(() => parseCommandLine('usage', { seed: { type: 'string' } }, { args: ['--seed'] }))).toMatch(/--seed/);
    expect(parseCommandLine('usage', { seed: { type: 'string' } }, { args: ['--seed='] }).values.seed).toBe('');
  });
});

describe('the shared options of the harness commands', () => {
  const conformance = { kinds: ['embedded', 'url', 'container', 'stdio'] as const, baseUrlKinds: ['url', 'stdio'] as const };
  const load = { kinds: ['embedded', 'url', 'container'] as const, baseUrlKinds: ['url'] as const };

  it('targetOption: url when a URL is given, else embedded; each command its own kinds', () => {
    expect(targetOption({}, load)).toEqual({ kind: 'embedded' });
    expect(targetOption({ 'base-url': 'http://127.0.0.1:8080' }, load)).toEqual({ kind: 'url', baseUrl: 'http://127.0.0.1:8080' });
    expect(targetOption({ target: 'stdio', 'base-url': 'http://x' }, conformance)).toEqual({ kind: 'stdio', baseUrl: 'http://x' });
    expect(targetOption({}, { ...conformance, endpointOption: { name: '--mcp-url', value: 'http://x/mcp' } })).toEqual({ kind: 'url' });
    expect(usageError(() => targetOption({ target: 'stdio' }, load))).toBe('--target must be embedded, url or container (got "stdio")');
    expect(usageError(() => targetOption({ target: 'url' }, load))).toBe('--target url needs --base-url');
    expect(usageError(() => targetOption({ target: 'url' }, { ...conformance, endpointOption: { name: '--mcp-url', value: undefined } }))).toBe('--target url needs --base-url or --mcp-url');
    expect(usageError(() => targetOption({ target: 'container', 'base-url': 'http://x' }, load))).toBe('--target container runs its own server: it takes no --base-url');
    expect(usageError(() => targetOption({ 'base-url': 'ftp://x' }, load))).toBe('--base-url must be an http(s) URL (got "ftp://x")');
  });

  it('mutantOption: embedded only, a known name, else the nearest known names', () => {
    const conformanceNames = [...MUTANTS, ...LOAD_MUTANTS, ...HOSTILE_MUTANTS, ...HTTPS_MUTANTS].map((m) => m.name);
    const loadNames = [...MUTANTS, ...LOAD_MUTANTS].map((m) => m.name);
    expect(mutantOption(undefined, 'url', 'load')).toBeUndefined();
    expect(mutantOption(LOAD_MUTANTS[0]!.name, 'embedded', 'load')).toBe(LOAD_MUTANTS[0]!.name);
    expect(mutantOption(HOSTILE_MUTANTS[0]!.name, 'embedded', 'conformance')).toBe(HOSTILE_MUTANTS[0]!.name);
    expect(mutantOption(HTTPS_MUTANTS[0]!.name, 'embedded', 'conformance')).toBe(HTTPS_MUTANTS[0]!.name);
    expect(usageError(() => mutantOption(MUTANTS[0]!.name, 'url', 'conformance'))).toBe('--mutant works with the embedded target only');
    // Five of the command's own names, the closest first: a name holding what was asked, then by edit distance.
    const nearest = (message: string) => /known: (.*) \(all of them: service\/mutants\/ in the repository\)$/.exec(message)?.[1]?.split(', ');
    const nope = usageError(() => mutantOption('nope', 'embedded', 'conformance'));
    expect(nope).toMatch(new RegExp(`^unknown mutant "nope"; the nearest of the ${conformanceNames.length} known: `));
    expect(nearest(nope)).toHaveLength(5);
    for (const name of nearest(nope)!) expect(conformanceNames).toContain(name);
    expect(nearest(usageError(() => mutantOption('auth-missing-key', 'embedded', 'conformance')))![0]).toBe('auth-missing-key-accepted');
    expect(nearest(usageError(() => mutantOption('auth-missing-key-acepted', 'embedded', 'conformance')))![0]).toBe('auth-missing-key-accepted');
    // A hostile mutant is no load mutant: the load commands name their own.
    const hostile = usageError(() => mutantOption(HOSTILE_MUTANTS[0]!.name, 'embedded', 'load'));
    expect(hostile).toMatch(new RegExp(`^unknown mutant "${HOSTILE_MUTANTS[0]!.name}"; the nearest of the ${loadNames.length} known: `));
    for (const name of nearest(hostile)!) expect(loadNames).toContain(name);
  });

  it('seedOption: a whole number of at least 0; not given, a random one; "" is no seed 0', () => {
    expect(seedOption('0')).toEqual({ seed: 0, given: true });
    expect(seedOption('123')).toEqual({ seed: 123, given: true });
    const random = seedOption(undefined);
    expect(random.given).toBe(false);
    expect(Number.isSafeInteger(random.seed) && random.seed >= 0).toBe(true);
    for (const bad of ['', '-1', '1.5', 'x']) expect(usageError(() => seedOption(bad))).toMatch(/^--seed must be a whole number from 0 to \d+ \(got "/);
  });

  it('timeoutOption: milliseconds from 100 to 600000, default 10000', () => {
    expect(timeoutOption(undefined)).toBe(10_000);
    expect(timeoutOption('100')).toBe(100);
    expect(usageError(() => timeoutOption('5'))).toBe('--timeout must be from 100 to 600000 milliseconds (got "5")');
    expect(usageError(() => timeoutOption(''))).toMatch(/^--timeout must be a whole number from 100 to 600000 milliseconds/);
  });

  it('keyOption: the option, else its environment variable', () => {
    const saved = process.env.MCP_SIBLING_KEY;
    try {
      process.env.MCP_SIBLING_KEY = 'from-env';
      expect(keyOption({}, 'sibling-key')).toBe('from-env');
      expect(keyOption({ 'sibling-key': 'given' }, 'sibling-key')).toBe('given');
      process.env.MCP_SIBLING_KEY = '';
      expect(keyOption({}, 'sibling-key')).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.MCP_SIBLING_KEY;
      else process.env.MCP_SIBLING_KEY = saved;
    }
  });
});
