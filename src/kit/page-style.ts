/**
 * The one look of the project's pages: report.html, and load.html and probe.html, which report.html also
 * takes in as sections. One palette, one font, one table, one pass and fail; each page adds only what is
 * its own (the matrix, the plots).
 */

/** The colours every page names by role. */
export const PALETTE = ':root { --fg:#1d232a; --muted:#5d6873; --bg:#fff; --line:#d8dee4; --soft:#f5f7f9; --pass:#1a7f37; --fail:#c62828; --warn:#9a6700; --nt:#4a5b8c; --un:#6e7781; }';

/** The body text of every page. */
export const BODY = 'body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: var(--bg); }';

/** The shared look inside `scope` (`.load-report`, `.probe-report`): tables, verdict colours, notes, plots. */
export function sectionStyle(scope: string): string {
  return [
    `${scope} { max-width: 1100px; padding: 4px 28px 18px; }`,
    `${scope} table { border-collapse: collapse; margin: 0.5em 0 1em; }`,
    `${scope} th, ${scope} td { border: 1px solid var(--line); padding: 3px 8px; font-size: 13px; text-align: left; }`,
    `${scope} th { background: var(--soft); }`,
    `${scope} .pass, ${scope} .ok { color: var(--pass); } ${scope} .fail { color: var(--fail); font-weight: 600; }`,
    `${scope} .muted { color: var(--muted); }`,
    `${scope} code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px; }`,
    `${scope} svg { display: block; margin: 1em 0; }`,
  ].join('\n');
}

/** The whole style of a page of one run (load.html, probe.html): the palette, the body, its section's look. */
export function pageStyle(scope: string, own = ''): string {
  return [PALETTE, BODY, sectionStyle(scope), own].filter(Boolean).join('\n');
}
