/**
 * Builds the reference image the container tests and `--target container` run (the repository's Dockerfile),
 * unless the image of these very sources is already there: scripts/setup.sh runs it last, so that a fresh
 * machine's first `npm test` finds the image built, like the compiled dependencies, instead of building it
 * while the test files compete for the cores. Starts podman's API service for the build when none answers,
 * and stops it afterwards.
 */
import { parseCommandLine } from '../src/kit/command-line.js';
import { main } from '../src/kit/main.js';
import { ensureReferenceImage } from '../src/targets/container.js';
import { ensureContainerEngine } from '../src/targets/container-engine.js';

const USAGE = `Usage: npm run build:image

Builds the reference image (localhost/canvas-reference:conformance) from the repository's Dockerfile, unless
the image of these sources is already there. Exit status: 0 the image is ready, 2 it is not (one line says why).`;

const log = (m: string) => console.error(`build-reference-image: ${m}`);

await main({ usage: USAGE }, async () => {
  parseCommandLine(USAGE, {});
  const engine = await ensureContainerEngine({ log });
  process.env.DOCKER_HOST = engine.dockerHost;
  try {
    log(`${await ensureReferenceImage(log)} is ready`);
    return 0;
  } finally {
    await engine.stop();
  }
});
