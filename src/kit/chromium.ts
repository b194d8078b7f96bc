import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Debian's Chromium (scripts/setup-browser.sh installs it), the one browser the project uses: the report
 * render test and the README's screenshots (scripts/screenshots.ts) open report.html in it, headless.
 * Undefined when it is not installed.
 */
export function findChromium(): string | undefined {
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(p)) return p;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}
