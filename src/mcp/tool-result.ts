/** Reading MCP tool results the same way in every suite: objects, text blocks, listed items. */

/** A JSON object (not null, not an array): the one such test of src/ and suites/ (the interop client programs, run standalone, keep their own). */
export function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The text blocks of a tool result, joined. */
export function textOf(result: any): string {
  return Array.isArray(result?.content) ? result.content.filter((i: any) => i?.type === 'text').map((i: any) => String(i.text)).join(' ') : '';
}

/** The items of a list result: `structuredContent` itself, or its first array member (else the same in the text). */
export function listedItems(result: any): unknown[] | undefined {
  let value = result?.structuredContent;
  if (value === undefined) {
    try {
      value = JSON.parse(textOf(result));
    } catch {
      return undefined;
    }
  }
  if (Array.isArray(value)) return value;
  if (isObject(value)) return Object.values(value).find(Array.isArray);
  return undefined;
}
