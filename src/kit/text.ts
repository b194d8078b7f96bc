/** Plain text shortening for every report. */

/** Cuts a string to `max` characters with a note saying how much was left out. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** One line: whitespace runs collapsed, cut to `max`. */
export function oneLine(text: string, max = 300): string {
  return truncate(text.replace(/\s+/g, ' ').trim(), max);
}

/**
 * A value as JSON cut to `max` characters, for messages about what a service sent: whatever it sent, even
 * nothing (`JSON.stringify(undefined)` is undefined, and a broken service must not break the message).
 */
export function jsonSnippet(value: unknown, max = 300): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  return (text ?? String(value)).slice(0, max);
}
