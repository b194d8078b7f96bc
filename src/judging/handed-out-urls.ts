import type { CheckContext } from '../engine/check.js';

/** The absolute http(s) URLs written in a text (Markdown, plain), trailing punctuation left out; unparsable ones skipped. */
export function absoluteUrls(text: string): { raw: string; url: URL }[] {
  const found: { raw: string; url: URL }[] = [];
  for (const m of text.matchAll(/https?:\/\/[^\s`'"()<>\]]+/gi)) {
    const raw = m[0].replace(/[.,;:!?]+$/, '');
    try {
      found.push({ raw, url: new URL(raw) });
    } catch {
      // not a URL after all (a placeholder such as https://{base_url}/...)
    }
  }
  return found;
}

/** A URL the service handed out, and where it was found (for the failure message). */
export interface HandedOutUrl { where: string; url: string }

/**
 * "Transport is HTTPS carrying JSON-RPC 2.0." (service.md): reached over https, the service hands out https
 * URLs of itself; an `http://` one sends the agent or the human (a claim link holds a workspace's claim) over
 * plain text. A target reached over plain http (a local run, a proxy in front) cannot say how the deployment
 * is served, so there the schemes are only observed.
 */
export function verifyHttpsUrls(c: CheckContext, urls: HandedOutUrl[], what: string): void {
  const target = new URL(c.target.baseUrl);
  const plain = urls.filter((u) => schemeOf(u.url) === 'http:');
  if (target.protocol !== 'https:') {
    c.observe(`the target is reached over ${target.protocol.replace(':', '')} (${target.origin}), not https: ${what} only observed (${urls.length} URL(s), ${plain.length} of them http://${plain.length ? `: ${plain.slice(0, 3).map((u) => `${u.where}: ${u.url}`).join('; ')}` : ''})`);
    return;
  }
  c.verify(plain.length === 0, `the service, reached over https, hands out plain http URLs of itself (${plain.slice(0, 5).map((u) => `${u.where}: ${u.url}`).join('; ')})`, 'https URLs', plain.slice(0, 10));
  c.observe(`${urls.length} URL(s) of the service, all https`);
}

function schemeOf(url: string): string | undefined {
  try {
    return new URL(url).protocol;
  } catch {
    return undefined;
  }
}
