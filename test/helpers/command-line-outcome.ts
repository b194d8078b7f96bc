import { describeFailure } from '../../src/kit/main.js';
import { scrubText, Secrets } from '../../src/kit/scrub.js';

/**
 * What a command prints on stderr and exits with for bad input, judged in this process: its option reader,
 * then main()'s describeFailure with the command's usage and its scrubber (the secrets the reader handed over).
 * A process per case costs 0.6-1.2 s of CPU (node, tsx, the preloaded packages); each command's test keeps a
 * case that starts the command itself, for its wiring through main(). Code 0 and no text: the line was accepted.
 */
export function commandLineOutcome(
  read: (onSecrets: (secrets: Secrets) => void) => unknown,
  usage: string,
  scrub: (text: string, secrets: Secrets) => string = scrubText,
): { code: number; stderr: string } {
  let secrets = new Secrets();
  try {
    read((s) => (secrets = s));
    return { code: 0, stderr: '' };
  } catch (err) {
    const { text, code } = describeFailure(err, { usage, scrub: (t) => scrub(t, secrets) }, {});
    return { code, stderr: `${text}\n` };
  }
}
