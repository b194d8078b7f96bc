import type { Middleware } from '../reference-server/app.js';
import { sendJson } from '../reference-server/http/respond.js';
import { authenticate } from '../reference-server/keys.js';

/**
 * `POST /api/agent/bootstrap` needs a live key of this service (a deployment that closed the agent-first
 * flow to the public); every other route is the reference's. GET still gets 405: the method is refused
 * before the route's authentication, as a router does.
 */
export const bootstrapBehindAuth: Middleware = ({ store, config }, next) => async (req, res) => {
  const path = (req.url ?? '').split('?', 1)[0];
  if (path !== '/api/agent/bootstrap' || req.method !== 'POST') return next(req, res);
  if (authenticate(store, config.keyPrefix, req.headers.authorization).ok) return next(req, res);
  req.resume();
  sendJson(res, 401, { error: 'unauthorized', error_description: 'Bootstrap needs an Authorization: Bearer <API key> header.' }, { 'www-authenticate': 'Bearer realm="bootstrap"' });
};
