/** Replaces every secret (API keys) in a string; reports, logs and wire logs never hold a plaintext key. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 8) out = out.split(s).join('[REDACTED]');
  return scrubKeyShapes(out);
}

/** Anything shaped like a service key (`<prefix>_live_<16+ characters>`), known or not: altered keys leak too. */
export function scrubKeyShapes(text: string): string {
  return text.replace(/(?<=_live_)[A-Za-z0-9]{16,}/g, '[REDACTED]');
}

/**
 * Authorization credentials are never recorded, whatever they are: checks send altered copies of real keys
 * (case-swapped, truncated), which a list of known secrets would miss. The scheme and length stay as evidence.
 */
export function redactHeaders(headers: Record<string, string>, secrets: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (k === 'authorization') {
      const m = /^(\s*\S+)(\s+)(.+)$/.exec(v);
      out[k] = m ? `${m[1]}${m[2]}[REDACTED ${m[3]!.length} chars]` : v.length > 12 ? `[REDACTED ${v.length} chars]` : v;
    } else {
      out[k] = redact(v, secrets);
    }
  }
  return out;
}
