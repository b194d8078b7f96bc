import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What the reference image is built from, besides the build arguments and the base image: the Dockerfile,
 * its allow-list, and every path the Dockerfile copies from the build context (test/harness/image-fingerprint
 * holds this list to the Dockerfile's COPY lines). node_modules is stood for by npm's own record of the
 * installed tree, which every install rewrites: hashing 229 MB on every run would cost what it saves.
 */
export const IMAGE_INPUTS = ['Dockerfile', '.dockerignore', 'package.json', 'package-lock.json', 'dist/service/reference-server', 'dist/service/smtp-sink', 'dist/src/kit'] as const;
export const HOST_MODULES_RECORD = 'node_modules/.package-lock.json';

/** The image label that carries the fingerprint of what the image was built from. */
export const FINGERPRINT_LABEL = 'org.canvas-harness.fingerprint';

function filesUnder(root: string, path: string): string[] {
  const full = join(root, path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name).slice(root.length).replace(/^\/+/, ''))
    .sort();
}

/**
 * A SHA-256 over the build's inputs (names and contents), its build arguments and the base image's id: two
 * builds with the same fingerprint make the same image, so a tagged image that carries it need not be rebuilt.
 */
export function imageFingerprint(root: string, buildArgs: Record<string, string>, baseImageId: string): string {
  const sha = createHash('sha256');
  const paths = IMAGE_INPUTS.flatMap((p) => filesUnder(root, p));
  if (buildArgs.NODE_MODULES === 'host') paths.push(HOST_MODULES_RECORD);
  for (const path of paths) {
    sha.update(`${path}\0`);
    sha.update(readFileSync(join(root, path)));
    sha.update('\0');
  }
  for (const [name, value] of Object.entries(buildArgs).sort(([a], [b]) => a.localeCompare(b))) sha.update(`arg ${name}=${value}\0`);
  sha.update(`base ${baseImageId}`);
  return sha.digest('hex');
}
