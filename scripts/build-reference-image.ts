/**
 * Builds the reference image the container tests and `--target container` run (the repository's Dockerfile),
 * unless the image of these very sources is already there: scripts/setup.sh runs it last, so that a fresh
 * machine's first `npm test` finds the image built, like the compiled dependencies, instead of building it
 * while the test files compete for the cores. Starts podman's API service for the build when none answers,
 * and stops it afterwards. Usage: npm run build:image
 */
import { ensureReferenceImage } from '../src/targets/container.js';
import { ensureContainerEngine } from '../src/targets/container-engine.js';

const log = (m: string) => console.error(`build-reference-image: ${m}`);
if (process.argv.length > 2) {
  console.error('usage: npm run build:image (no options)');
  process.exit(2);
}
const engine = await ensureContainerEngine({ log });
process.env.DOCKER_HOST = engine.dockerHost;
try {
  log(`${await ensureReferenceImage(log)} is ready`);
} catch (err) {
  log((err as Error).message);
  process.exitCode = 1;
} finally {
  await engine.stop();
}
