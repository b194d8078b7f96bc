/**
 * `--reporter github`: GitHub Actions workflow commands for a run's failures, printed on stdout after the
 * verdict. A failing MUST row gives `::error title=<row id>::<message> (replay: <command>)` per failing
 * check, a failing SHOULD row `::warning`, a failing MAY or INFO row `::notice`; a row the baseline
 * expects to fail is a notice, a stale baseline entry an error. Pure: the scrubbed results in, lines out
 * (the CLI scrubs each line again when it prints).
 */
import type { Results } from '../engine/results.js';

/** A command's message: % CR LF escaped (GitHub's toolkit `escapeData`), so a message stays one annotation. */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A command's property value (title, file): : and , escaped too (the toolkit's `escapeProperty`). */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function command(kind: 'error' | 'warning' | 'notice', title: string, message: string): string {
  return `::${kind} title=${escapeProperty(title)}::${escapeData(message)}`;
}

/** The annotations of a run, in catalog order. */
export function githubAnnotations(results: Results): string[] {
  const lines: string[] = [];
  for (const r of results.requirements) {
    if (r.baseline === 'stale') {
      lines.push(command('error', r.id, `${r.id} passes but --baseline lists it as an expected failure: remove it from the baseline`));
      continue;
    }
    if (r.status !== 'fail' && r.status !== 'warn' && r.status !== 'error') continue;
    const kind = r.baseline === 'expected-failure' ? 'notice'
      : r.status === 'error' || r.level === 'MUST' ? 'error' : r.level === 'SHOULD' ? 'warning' : 'notice';
    const prefix = r.baseline === 'expected-failure' ? 'expected failure (baseline): ' : '';
    for (const c of r.checks.filter((x) => x.status === 'fail' || x.status === 'error')) {
      const where = c.revision ? ` [${c.revision}]` : '';
      const message = `${prefix}${r.level} ${c.name}${where}: ${c.message ?? 'failed'}${c.replay ? ` (replay: ${c.replay})` : ''}`;
      lines.push(command(kind, r.id, message));
    }
  }
  return lines;
}
