import { conformanceSecrets, scrubLine } from '../reports/index.js';
import { runConformance } from '../run.js';
import { describeFailure } from '../kit/main.js';
import { Secrets } from '../kit/scrub.js';
import { keyLedger } from '../wire/key-sightings.js';
import { CONFORMANCE_USAGE, parseConformanceArgs } from './conformance-options.js';
import type { PoolReply, PoolRequest } from './conformance-pool.js';

/**
 * One process of the conformance pool (src/cli/conformance-pool.ts): runs the conformance command lines it is
 * sent, one after the other, exactly as `npm run conformance` would (same parsing, same reports), but without
 * paying node, tsx and the harness's module graph again for each run. Exit codes as the command's: 0 or 1 a
 * verdict, 2 anything else, with what the command would print on stderr: the one scrubbed error line, and the
 * usage after a usage error (main()'s describeFailure, the command's scrubber).
 */
if (!process.send) {
  console.error('conformance-pool-child: started by src/cli/conformance-pool.ts only (it needs an IPC channel)');
  process.exit(2);
}

const queue: PoolRequest[] = [];
let busy = false;

async function runOne(request: PoolRequest): Promise<PoolReply> {
  let secrets = new Secrets();
  try {
    const { options } = parseConformanceArgs(request.args, (raw) => (secrets = raw));
    secrets = conformanceSecrets(options);
    // No progress lines: nobody reads this process's stderr line by line. The suites' threads serve the next run.
    return { id: request.id, code: (await runConformance({ ...options, progress: undefined, keepSuiteThreads: true })).exitCode };
  } catch (err) {
    const learnt = secrets.with({ values: keyLedger.redaction() }); // keys the run learnt on its way
    return { id: request.id, code: 2, error: describeFailure(err, { usage: CONFORMANCE_USAGE, scrub: (text) => scrubLine(text, learnt) }, {}).text.trim() };
  }
}

async function drain(): Promise<void> {
  if (busy) return;
  busy = true;
  for (let next = queue.shift(); next; next = queue.shift()) process.send!(await runOne(next));
  busy = false;
}

process.on('message', (message: PoolRequest | { type: 'stop' }) => {
  if ('type' in message) process.exit(0);
  queue.push(message);
  void drain();
});
// The parent is gone: nothing will read the results.
process.on('disconnect', () => process.exit(0));
