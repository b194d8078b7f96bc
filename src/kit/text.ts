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
