import { finalMessage } from '../../mcp/mcp-session.js';
import { fill } from '../../profile/profile.js';
import { isObject, listedItems } from '../../mcp/tool-result.js';
import type { WireResponse } from '../../wire/client.js';
import { keyName, labelOf, secretOf, type Model, type ModelBlock, type ModelKey, type ModelWorkspace, type Real } from './state.js';

/** What the commands observe of the service and compare with the model: a reply accepted or refused, a list of blocks. */

/** A result that is not a tool error, on a 2xx. */
export function accepted(res: WireResponse): boolean {
  const msg = finalMessage(res);
  return res.status >= 200 && res.status < 300 && isObject(msg?.result) && msg.result.isError !== true;
}

/** The ids a list result holds (or the items themselves, as JSON, when they have none). */
function listedIds(result: any): string[] | undefined {
  const items = listedItems(result);
  return items?.map((item: unknown) => (isObject(item) && item.id !== undefined ? String(item.id) : JSON.stringify(item)));
}

/** "Invalid or expired tokens MUST receive a HTTP 401 response": a revoked key gets 401 and never a result. */
export function expectRevoked(r: Real, step: string, res: WireResponse): void {
  const msg = finalMessage(res);
  r.c.verify(res.status === 401 && msg?.result === undefined,
    `${step}: the key was revoked, so the call gets HTTP 401 and no result (auth-revoked-key-401)`, 'HTTP 401', r.c.brief(res));
}

/** A live key of the workspace: refused with 401 means revoking a sibling revoked it too. */
export function expectLive(r: Real, w: ModelWorkspace, k: ModelKey, step: string, res: WireResponse): void {
  const revoked = w.keys.filter((x) => !x.live).map((x) => x.label);
  r.c.verify(res.status !== 401,
    revoked.length > 0
      ? `${step}: key ${k.label} was never revoked; revoking ${revoked.join(', ')} of the same workspace must leave it working, since revocation is per place (model-revocation-per-key)`
      : `${step}: key ${k.label} is live and is refused with 401`,
    'a reply other than 401', r.c.brief(res));
}

/** The `published` filter of a list, in words. */
export const filterWords = (published: boolean | undefined) => (published === undefined ? '' : ` (published: ${published})`);

/** blocks.list with a key, with or without the `published` filter. */
export function listWith(r: Real, k: ModelKey, published: boolean | undefined): Promise<WireResponse> {
  const recipe = r.recipes.list;
  // service.md: "`blocks.list` accepts a boolean argument `published`."
  const args = { ...(fill(recipe.arguments, {}) as Record<string, unknown>), ...(published !== undefined && { published }) };
  return r.c.mcp.call(recipe.tool, args, { key: secretOf(r, k), refusal: !k.live });
}

/** Compares a blocks.list reply with the model: exactly the workspace's blocks, partitioned by the filter. */
export function verifyList(m: Model, r: Real, w: ModelWorkspace, k: ModelKey, published: boolean | undefined, res: WireResponse, step: string): void {
  if (!k.live) return expectRevoked(r, step, res);
  expectLive(r, w, k, step, res);
  r.c.verify(accepted(res), `${step}: blocks.list succeeds`, 'a result', r.c.brief(res));
  const ids = listedIds(finalMessage(res).result);
  r.c.verify(ids !== undefined, `${step}: blocks.list returns a list of blocks`, 'an array of blocks', r.c.brief(res));
  const listed = ids!;
  // "A key is workspace-scoped: one key carries the context of one workspace."
  const foreign = listed.filter((id) => !w.blocks.some((b) => b.id === id));
  r.c.verify(foreign.length === 0,
    `${step}: the list holds only workspace ${w.name}'s blocks (auth-workspace-scoped-read)`, `only blocks of ${w.name}`, foreign.map((id) => labelOf(m, id)));
  const twice = listed.filter((id, i) => listed.indexOf(id) !== i);
  r.c.verify(twice.length === 0, `${step}: no block is listed twice`, [], twice.map((id) => labelOf(m, id)));
  const wanted = (b: ModelBlock) => published === undefined || b.published === published;
  const missingBlocks = w.blocks.filter((b) => wanted(b) && !listed.includes(b.id));
  const missing = missingBlocks.map((b) => b.label);
  // A block another key of the workspace created: the two keys do not see the same blocks.
  const siblings = missingBlocks.some((b) => b.by !== k.label) ? ', model-sibling-keys-same-workspace' : '';
  r.c.verify(missing.length === 0,
    published === undefined
      ? `${step}: every block created in ${w.name} is listed, whichever of its keys lists (model-created-block-listed${siblings}); missing ${missing.join(', ')}`
      : `${step}: every block of ${w.name} whose published flag is ${published} is listed under published: ${published} (calls-published-filter-partitions${siblings}); missing ${missing.join(', ')}`,
    w.blocks.filter(wanted).map((b) => b.label), listed.map((id) => labelOf(m, id)));
  if (published !== undefined) {
    const wrong = w.blocks.filter((b) => b.published === !published && listed.includes(b.id)).map((b) => b.label);
    r.c.verify(wrong.length === 0, `${step}: a block whose published flag is ${!published} is not listed under published: ${published} (calls-published-filter-partitions)`, [], wrong);
    // A new block's flag is not shown: the first filtered list tells it, and later lists must agree.
    for (const b of w.blocks) if (b.published === undefined) b.published = listed.includes(b.id) ? published : !published;
  }
}

/** Every key of both workspaces lists blocks, with and without the filter (a few ms, all at once). */
export async function listEverywhere(m: Model, r: Real, step: string): Promise<void> {
  const lists = Object.values(m.ws).flatMap((w) => w.keys.flatMap((k) => [undefined, true, false].map((published) => ({ w, k, published }))));
  const replies = await Promise.all(lists.map(({ k, published }) => listWith(r, k, published)));
  lists.forEach(({ w, k, published }, i) => {
    verifyList(m, r, w, k, published, replies[i]!, `${step}, list blocks${filterWords(published)} with ${keyName(k)}`);
  });
}
