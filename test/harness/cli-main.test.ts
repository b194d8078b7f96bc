import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { describeFailure, exitStatus } from '../../src/kit/main.js';
import { UsageError } from '../../src/kit/options.js';

// main() (src/kit/main.ts) is how every command ends: only a verdict exits 0 or 1; bad usage exits 2 with
// the usage, any other error 2 with one scrubbed line and no stack unless HARNESS_DEBUG=1.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SECRET = 'hunter2-very-secret-token';
const KEY = `cnv_live_${'A1b2'.repeat(10)}`;
const STACK_LINE = /^\s+at /m;

describe('describeFailure', () => {
  const options = { usage: 'Usage: cmd [--x]', scrub: (text: string) => text.replaceAll(SECRET, '[REDACTED]') };

  it('a UsageError: the message, a blank line, the usage', () => {
    expect(describeFailure(new UsageError('--x must be a whole number'), options, {})).toEqual({ text: 'error: --x must be a whole number\n\nUsage: cmd [--x]', code: 2 });
  });

  it('any other error: one line, scrubbed, never a stack', () => {
    for (const err of [new TypeError(`cannot read ${SECRET}`), new Error(`first\n  second ${SECRET}\n`), `thrown string ${SECRET}`, new Error('')]) {
      const { text, code } = describeFailure(err, options, {});
      expect(code).toBe(2);
      expect(text.split('\n')).toHaveLength(1);
      expect(text).toMatch(/^error: \S/);
      expect(text).not.toContain(SECRET);
    }
    expect(describeFailure(new Error('first\n  second'), options, {}).text).toBe('error: first | second');
  });

  it('HARNESS_DEBUG=1 adds the stack, scrubbed too', () => {
    const err = new TypeError(`boom ${SECRET}`);
    const { text } = describeFailure(err, options, { HARNESS_DEBUG: '1' });
    expect(text).toMatch(STACK_LINE);
    expect(text).not.toContain(SECRET);
    expect(describeFailure(err, options, { HARNESS_DEBUG: '0' }).text).not.toMatch(STACK_LINE);
  });

  it('without a scrubber of the command, the secret-free patterns still apply (key shapes, Bearer, URL userinfo)', () => {
    const { text } = describeFailure(new Error(`401 for ${KEY} at https://user:pa55word@example.com/x`), { usage: '' }, {});
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('pa55word');
  });

  it('the usage texts say the same thing about exit status', () => {
    const text = exitStatus('conforms', 'a requirement fails', 'k6 failing to run');
    expect(text).toMatch(/^Exit status\n {2}0 {2}conforms\n {2}1 {2}a requirement fails\n {2}2 {2}anything else, never a verdict: bad usage/);
    expect(text).toMatch(/, k6 failing to run\n {5}\(one line "error: \.\.\." on stderr; HARNESS_DEBUG=1 adds the stack trace\)$/);
  });
});

describe('main() in a process of its own', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-main-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(dir, 'command.mts');
  // A command whose body does what its one argument says.
  writeFileSync(script, `
import { endingOnSignal, main } from ${JSON.stringify(join(ROOT, 'src/kit/main.ts'))};
import { UsageError } from ${JSON.stringify(join(ROOT, 'src/kit/options.ts'))};
const what = process.argv[2];
await main({ usage: 'Usage: command <what>', scrub: (text) => text.replaceAll(${JSON.stringify(SECRET)}, '[REDACTED]') }, async () => {
  if (what === 'pass') return 0;
  if (what === 'fail') return 1;
  if (what === 'usage') throw new UsageError('--what must be pass or fail');
  if (what === 'type-error') return (undefined as unknown as { key: string }).key.length;
  if (what === 'secret') throw new Error('upstream said: ${SECRET}\\nand more');
  if (what === 'key') throw new Error('refused ${KEY}');
  if (what === 'signal') {
    // A SIGTERM handler cleans up for 200 ms, then exits 143; the work its cleanup cuts off (an interval
    // stands for an image build) fails meanwhile.
    const work = setInterval(() => {}, 1000);
    let cutOff = () => {};
    process.on('SIGTERM', () => {
      endingOnSignal(143);
      cutOff();
      setTimeout(() => process.exit(143), 200);
    });
    setTimeout(() => process.kill(process.pid, 'SIGTERM'), 50);
    await new Promise((resolve, reject) => { cutOff = () => { clearInterval(work); reject(new Error('read ECONNRESET')); }; });
    return 0;
  }
  if (what === 'later') {
    // A server's body returns nothing; a rejection nobody awaits still ends the process through main().
    setTimeout(() => void Promise.reject(new RangeError('late ${SECRET}')), 10);
    return;
  }
  return 0;
});
`);

  const run = (what: string, env: Record<string, string> = {}) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', script, what], { cwd: ROOT, timeout: 30_000, env: { ...process.env, HARNESS_DEBUG: '', ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });

  it('only a verdict exits 0 or 1; bad usage, a TypeError, an error with a secret, an unhandled rejection all exit 2 with one line', async () => {
    const [pass, fail, usage, typeError, secret, key, later, debug] = await Promise.all([
      run('pass'), run('fail'), run('usage'), run('type-error'), run('secret'), run('key'), run('later'), run('type-error', { HARNESS_DEBUG: '1' }),
    ]);
    expect([pass.code, fail.code], pass.stderr + fail.stderr).toEqual([0, 1]);
    expect(pass.stderr + fail.stderr).toBe('');

    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe('error: --what must be pass or fail\n\nUsage: command <what>\n');

    for (const r of [typeError, secret, key, later]) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(/^error: /);
      expect(r.stderr).not.toMatch(STACK_LINE);
      expect(r.stderr).not.toContain(SECRET);
      expect(r.stderr).not.toContain(KEY);
    }
    expect(typeError.stderr).toMatch(/^error: Cannot read properties of undefined/);
    expect(secret.stderr).toBe('error: upstream said: [REDACTED] | and more\n');
    expect(later.stderr).toBe('error: late [REDACTED]\n');

    expect(debug.code).toBe(2);
    expect(debug.stderr).toMatch(/^error: Cannot read properties of undefined[^\n]*\nTypeError: /);
    expect(debug.stderr).toMatch(STACK_LINE);
  }, 60_000);

  it('a signal handler that is cleaning up decides the exit: what its cleanup cuts off is not an error (exit 143, no line)', async () => {
    const signal = await run('signal');
    expect(signal.code, signal.stderr).toBe(143);
    expect(signal.stderr).toBe('');
  }, 60_000);
});
