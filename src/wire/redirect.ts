import { CheckFailure } from '../engine/verdict.js';
import { redact } from './redact.js';

/**
 * No request leaves the target's origin (issue 13): every HTTP client of the harness refuses redirects.
 * A redirect followed would send the request again, body and headers (the key included), to whatever host
 * the `Location` names. So nothing is ever followed, and a redirect the harness must refuse is the service's
 * failure: "There is exactly one MCP endpoint: `{base_url}/api/mcp/v1`", answered by itself.
 */

/** The one thrown for a refused redirect: a verdict on the service (a CheckFailure), naming where it pointed. */
export class RedirectRefused extends CheckFailure {
  constructor(message: string, readonly status: number, readonly location: string | undefined, readonly crossOrigin: boolean) {
    super(message, 'an answer from the endpoint itself, not a redirect', { status, ...(location !== undefined && { location }) });
    this.name = 'RedirectRefused';
  }
}

/** RFC 9110 §15.4: a 3xx other than 304 (Not Modified answers a conditional request; it points nowhere). */
export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400 && status !== 304;
}

/**
 * The refusal of a reply, or undefined when the reply is not one to refuse. Refused: a redirect to another
 * origin (any method), and any redirect of a request that is not GET or HEAD (an endpoint taking POST must
 * answer it, not send it elsewhere). A same-origin redirect of a GET (a claim page sending a human to sign in)
 * is left to the check; it is not followed either. `secrets` are redacted from the Location in the message.
 */
export function refuseRedirect(method: string, url: string, status: number, location: string | undefined, secrets: readonly string[] = []): RedirectRefused | undefined {
  if (!isRedirect(status)) return undefined;
  const from = new URL(url);
  let to: URL | undefined;
  try {
    to = location === undefined ? undefined : new URL(location, from);
  } catch {
    to = undefined;
  }
  // A Location that does not parse points nowhere this side can judge: treated as leaving the origin.
  const crossOrigin = to === undefined ? location !== undefined : to.origin !== from.origin;
  const safe = method.toUpperCase() === 'GET' || method.toUpperCase() === 'HEAD';
  // A page for humans (the claim link) may send a browser to a sign-in host: not followed, not a failure.
  // The API itself (the MCP endpoint, bootstrap) answers every method itself.
  if (safe && (!crossOrigin || !from.pathname.startsWith('/api/'))) return undefined;
  const where = location === undefined ? 'without a Location' : `to ${redact(to?.href ?? location, secrets)}`;
  const kind = crossOrigin ? 'another origin' : 'the same origin';
  const shown = redact(location ?? '', secrets) || undefined;
  return new RedirectRefused(
    `the service redirected ${method.toUpperCase()} ${redact(from.pathname, secrets)} ${where} (HTTP ${status}, ${kind}): not followed`,
    status, shown, crossOrigin,
  );
}

/**
 * A fetch for clients the harness does not write (the SDK's transport): never follows a redirect
 * (`redirect: 'manual'`, so nothing is sent to the Location) and throws the refusal instead of handing the
 * 3xx on. `onRefused` sees the refusal and the reply first (recording).
 */
export function noRedirectFetch(
  inner: (input: string | URL, init?: RequestInit) => Promise<Response> = fetch,
  secrets: () => readonly string[] = () => [],
  onRefused?: (refusal: RedirectRefused, res: Response) => void,
): (input: string | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const res = await inner(input, { ...init, redirect: 'manual' });
    const refusal = refuseRedirect(init?.method ?? 'GET', String(input), res.status, res.headers.get('location') ?? undefined, secrets());
    if (!refusal) return res;
    onRefused?.(refusal, res);
    await res.body?.cancel().catch(() => {});
    throw refusal;
  };
}
