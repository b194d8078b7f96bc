import type { Purpose } from '../budget/bootstrap-plan.js';
import { budgetSpentReason } from '../budget/run-ledger.js';
import type { RunState } from '../engine/run-state.js';
import type { TargetInfo } from '../targets/target-info.js';
import { unusableKeyReason } from '../kit/key-form.js';
import { tryBootstrapKey } from '../targets/bootstrap-keys.js';
import type { Exchange } from '../wire/exchange.js';
import { redact } from '../wire/redact.js';

/**
 * A workspace of a check's (or a group's) own, from the bootstrap endpoint: its blocks and its rate bucket
 * are nobody else's. `purpose` names its share of the run's bootstrap budget (src/budget/bootstrap-plan.ts);
 * when the share is spent no request is sent and the note says so. The new key joins `secrets`, and the
 * recorded exchange is redacted after the fact (the key only became known in its response).
 */
export async function bootstrapWorkspace(run: RunState, target: TargetInfo, secrets: string[], purpose: Purpose): Promise<{ key?: string; exchanges: Exchange[]; note: string }> {
  if (!target.canBootstrap) return { exchanges: [], note: 'bootstrap is not allowed on this target' };
  const permit = run.ledger.permit(purpose, 1);
  if (permit.granted < 1) return { exchanges: [], note: budgetSpentReason(purpose, permit.budget) };
  const log: Exchange[] = [];
  const outcome = await tryBootstrapKey(run, target.baseUrl, purpose, log);
  if ('refused' in outcome) return { exchanges: log, note: outcome.refused };
  // Too short to be told from text (redact() matches a secret under 8 characters only as a whole token): not used as a key.
  if (outcome.apiKey.length < 8) return { exchanges: [], note: 'bootstrap answered with an apiKey too short to be a key' };
  // A key that cannot be a Bearer credential is judged once (bootstrap-key-b64token), never sent by the run.
  const unusable = unusableKeyReason(outcome.apiKey);
  if (unusable) return { exchanges: [], note: unusable };
  secrets.push(outcome.apiKey);
  // The key became known only in its reply: the recorded exchange is redacted after the fact.
  return { key: outcome.apiKey, exchanges: log.map((x) => JSON.parse(redact(JSON.stringify(x), secrets)) as Exchange), note: `a workspace bootstrapped for ${purpose}` };
}
