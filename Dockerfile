# The reference implementation of the service, compiled (npm run build writes dist/ first).
#
#   docker build -t canvas-reference .                      # registry + npm available
#   podman build --build-arg BASE_IMAGE=localhost/canvas-node-base \
#                --build-arg NODE_MODULES=host -t canvas-reference .   # offline, see below
#   docker run -p 127.0.0.1:8080:8080 canvas-reference
#
# BASE_IMAGE: any Debian-based image with node 20 and npm on the PATH. Where no
# registry is reachable, scripts/build-base-image.sh builds one locally
# (debootstrap minbase + the machine's own node): localhost/canvas-node-base.
ARG BASE_IMAGE=node:20-bookworm-slim

# NODE_MODULES picks where the dependencies come from:
#   npm-ci (default)  `npm ci --omit=dev` in the image, as anyone with Docker
#                     expects. better-sqlite3 is native: its prebuilt binary is
#                     downloaded; if that fails, a compiler is installed in this
#                     throw-away stage only and it is built from source.
#   host              reuse the node_modules of the build context, already built
#                     on this machine, and prune the dev dependencies. For
#                     machines without a registry in the image build (no
#                     compiler in a minbase image, no prebuilt download). Only
#                     valid when the host's node ABI and glibc match the base
#                     image's, which is how build-base-image.sh makes it.
# Only the selected stage is built: BuildKit and buildah (podman) skip unused
# stages. Docker's legacy builder (DOCKER_BUILDKIT=0, or testcontainers against
# a Docker engine) builds both, so there node_modules must exist in the context.
ARG NODE_MODULES=npm-ci

FROM ${BASE_IMAGE} AS manifest
WORKDIR /app
COPY package.json package-lock.json ./

FROM manifest AS node-modules-npm-ci
RUN npm ci --omit=dev --no-audit --no-fund \
 || { apt-get update \
      && apt-get install -y --no-install-recommends python3 make g++ \
      && npm ci --omit=dev --no-audit --no-fund; }

FROM manifest AS node-modules-host
COPY node_modules ./node_modules
# --offline: pruning only deletes, it must never need the network.
RUN npm prune --omit=dev --offline --no-audit --no-fund

FROM node-modules-${NODE_MODULES} AS node-modules

FROM ${BASE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
# The official node images have a `node` user (uid 1000); other bases may not.
# /data holds SQLite files (compose mounts a volume there); owned by node so
# that a fresh named volume, initialised from the image, is writable.
RUN (id -u node >/dev/null 2>&1 || useradd --uid 1000 --user-group --create-home node) \
 && mkdir -p /data && chown node:node /data
COPY --from=node-modules /app/node_modules ./node_modules
COPY package.json ./
COPY dist/service/reference-server ./dist/service/reference-server
COPY dist/service/smtp-sink ./dist/service/smtp-sink
# The service uses only the harness's bottom layer (option parsing), never the harness itself.
COPY dist/src/kit ./dist/src/kit
USER node
EXPOSE 8080
# What the image was built from (src/targets/image-fingerprint.ts): the container target skips a build
# whose fingerprint the tagged image already carries. Last, so that a new value rebuilds only this layer.
ARG SOURCE_FINGERPRINT=unknown
LABEL org.canvas-harness.fingerprint=${SOURCE_FINGERPRINT}
# node directly, not `npm run`: node is PID 1 and gets SIGTERM (main.ts closes
# cleanly on it). Compose overrides this command for the balancer and sink.
CMD ["node", "--max-semi-space-size=32", "dist/service/reference-server/main.js", "--host", "0.0.0.0", "--port", "8080"]
