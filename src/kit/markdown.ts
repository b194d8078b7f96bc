/** GitHub-flavoured Markdown text for the .md reports: free text, code spans and blocks, table cells. */
import { scrubKeyShapes } from './scrub.js';

/** Escapes Markdown and inline HTML in free text (messages, requirement sentences); keeps it on one line. */
export function mdText(text: string): string {
  // Key shapes go before escaping: an escaped `\_live\_` no longer looks like a key.
  return scrubKeyShapes(text).replace(/\s+/g, ' ').trim()
    .replace(/[\\`*_[\]<>|~&#@]/g, (ch) => `\\${ch}`) // emphasis, links, HTML, tables, strikethrough, entities, refs, mentions
    .replace(/^[-+=]/, (ch) => `\\${ch}`).replace(/^(\d+)([.)])/, '$1\\$2'); // a leading list marker
}

/** An inline code span that survives backticks in the text (CommonMark: a longer fence, padded). */
export function mdCode(text: string): string {
  const t = scrubKeyShapes(text).replace(/\s+/g, ' ');
  const longest = Math.max(0, ...(t.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  const pad = t.startsWith('`') || t.endsWith('`') || t === '' ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/** A fenced code block whose fence is longer than any backtick run inside. */
export function mdBlock(text: string, lang = ''): string {
  const t = scrubKeyShapes(text);
  const longest = Math.max(0, ...(t.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${t}\n${fence}`;
}

/** A table cell: one line, pipes escaped (those not escaped already). Input is already Markdown. */
export function mdCell(md: string): string {
  return md.replace(/\n/g, ' ').replace(/(?<!\\)\|/g, '\\|');
}

/** A table row of Markdown cells. */
export function mdRow(cells: string[]): string {
  return `| ${cells.map(mdCell).join(' | ')} |`;
}
