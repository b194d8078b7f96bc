/** Replaces every secret (API keys) in a string; reports, logs and wire logs never hold a plaintext key. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 8) out = out.split(s).join('[REDACTED]');
  return out;
}

export function redactHeaders(headers: Record<string, string>, secrets: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = k === 'authorization' && /^\s*bearer\s+\S/i.test(v) && secrets.some((s) => v.includes(s)) ? v.replace(/\S+$/, '[REDACTED]') : redact(v, secrets);
  return out;
}
