/**
 * Escaping for the HTML and XML reports (and the SVG charts in them). Key-shaped text is scrubbed here too,
 * as a second line behind the door (src/kit/scrub.ts): a renderer called directly (a test) leaks nothing.
 */
import { scrubKeyShapes } from './scrub.js';

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and attribute values; control characters become visible escapes. */
export function htmlEscape(text: string): string {
  return scrubKeyShapes(text)
    .replace(/[&<>"']/g, (ch) => HTML_ENTITIES[ch]!)
    // C0/C1 controls (other than tab, LF, CR), lone surrogates and noncharacters are shown, not emitted.
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
      (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Characters XML 1.0 forbids anywhere (C0 controls other than tab, LF, CR; lone surrogates; U+FFFE,
 * U+FFFF). With the `u` flag a lone surrogate is one code point outside the allowed ranges.
 */
const ILLEGAL_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\r': '&#13;' };

/** Escapes text for XML content and attribute values (either quote style), dropping illegal characters. */
export function xmlEscape(text: string): string {
  return text.replace(ILLEGAL_XML, '').replace(/[&<>"'\r]/g, (ch) => XML_ENTITIES[ch]!);
}

/** Attribute values are also whitespace-normalised by parsers: keep tabs and newlines as references. */
export function xmlAttr(text: string): string {
  return xmlEscape(text).replace(/\t/g, '&#9;').replace(/\n/g, '&#10;');
}
