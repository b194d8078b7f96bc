/**
 * The README's pictures of report.html, taken as a person would see them: three real report folders (a
 * passing run, a failing streaming run, a conformance + load + probe folder), each page opened in Debian's
 * headless Chromium (scripts/setup-browser.sh) and saved as a PNG. test/harness/screenshots.test.ts runs it
 * into a folder of its own; `npm run screenshots` writes docs/screenshots/ (commit them with the change).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseCommandLine } from '../src/kit/command-line.js';
import { exitStatus, main } from '../src/kit/main.js';
import { PACKAGE_ROOT } from '../src/kit/package-root.js';
import { findChromium } from '../src/kit/chromium.js';

const USAGE = `Usage: npm run screenshots -- [--out <dir>]

Runs three report folders against the embedded reference server (a passing run; a failing streaming run,
the progress-out-of-order mutant; conformance, load and probe into one folder) and saves a screenshot of
each report.html, taken in headless Chromium: passing.png, failing-streaming.png, combined.png.
  --out <dir>   where the PNGs go (default docs/screenshots)

${exitStatus('the three screenshots were taken', 'never', 'no Chromium (scripts/setup-browser.sh), a run that wrote no report')}`;

const BIN = join(PACKAGE_ROOT, 'dist/src/cli/bin.js');

function run(file: string, args: string[], timeoutMs = 180_000): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = execFile(file, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, MCP_API_KEY: '' } }, (err, _stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stderr });
    });
    child.stdin?.end();
  });
}

function chromium(): string {
  const path = findChromium();
  if (!path) throw new Error('chromium is not installed: run scripts/setup-browser.sh');
  return path;
}

/** One page, the top 1280 x 1600 pixels of it, as Chromium draws it with nothing from the network. */
async function screenshot(page: string, png: string, profile: string): Promise<void> {
  const shot = await run(chromium(), [
    '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--disable-extensions', '--hide-scrollbars', `--user-data-dir=${profile}`, '--window-size=1280,1600', `--screenshot=${png}`,
    pathToFileURL(page).href,
  ], 60_000);
  if (!existsSync(png)) throw new Error(`chromium took no screenshot of ${page}: ${shot.stderr.slice(-500)}`);
}

await main({ usage: USAGE }, async () => {
  const { values } = parseCommandLine(USAGE, { out: { type: 'string' } });
  const out = resolve(values.out ?? join(PACKAGE_ROOT, 'docs/screenshots'));
  mkdirSync(out, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'screenshots-'));
  try {
    const folders = { passing: join(work, 'passing'), 'failing-streaming': join(work, 'failing-streaming'), combined: join(work, 'combined') };
    const runs: [string, string[], (code: number | null) => boolean][] = [
      [folders.passing, ['conformance', '--only', 'discovery-,tools-,calls-', '--seed', '1', '--quiet', '--report-dir', folders.passing], (c) => c === 0],
      [folders['failing-streaming'], ['conformance', '--mutant', 'progress-out-of-order', '--only', 'stream-', '--seed', '1', '--quiet', '--report-dir', folders['failing-streaming']], (c) => c === 1],
      [folders.combined, ['conformance', '--only', 'discovery-,rate-limit-', '--seed', '1', '--quiet', '--report-dir', folders.combined], (c) => c === 0],
      [folders.combined, ['load', '--scenario', 'tools-list,mix', '--duration', '2', '--connections', '4', '--quiet', '--report-dir', folders.combined], (c) => c === 0],
      [folders.combined, ['probe', '--max-time', '20', '--quiet', '--report-dir', folders.combined], (c) => c === 0],
    ];
    for (const [, args, ok] of runs) {
      const r = await run(process.execPath, [BIN, ...args]);
      if (!ok(r.code)) throw new Error(`${args.slice(0, 1).join(' ')} exited ${r.code}: ${r.stderr.slice(-800)}`);
    }
    for (const [name, dir] of Object.entries(folders)) {
      await screenshot(join(dir, 'report.html'), join(out, `${name}.png`), join(work, `profile-${name}`));
      console.log(join(out, `${name}.png`));
    }
    return 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
