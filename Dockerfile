# syntax=docker/dockerfile:1
#
# The booking worker image; the same image runs the supplier simulator and the codec server
# (docker-compose.yml picks the command).
#
# Debian slim, never Alpine: the Temporal core bridge ships glibc builds only (no musl).
# TypeScript runs through tsx (a production dependency) rather than a tsc build: one artefact,
# the code paths the tests exercise, and no build step between a type error elsewhere in the
# repository and a worker release (type checks are CI's gate).

ARG NODE_IMAGE=node:20.20.2-bookworm-slim

# --- production dependencies --------------------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary matches the platform.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- the workflow bundle, built once per image ----------------------------------------------------
FROM deps AS bundle
COPY tsconfig.json ./
COPY src ./src
RUN node --import tsx src/scripts/build-bundle.ts /app/workflow-bundle.js

# --- runtime --------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    WORKFLOW_BUNDLE_PATH=/app/workflow-bundle.js \
    CATALOGUE_DB_PATH=/data/catalogue.db \
    PATH=/app/node_modules/.bin:$PATH
# Everything stays owned by root and read-only to the process user.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
COPY --from=bundle /app/workflow-bundle.js ./workflow-bundle.js
# The official image's unprivileged user (uid 1000).
# The content catalogue (SQLite) lives in a volume the non-root user owns.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
# METRICS_PORT, HEALTH_PORT (defaults of src/config.ts)
EXPOSE 9464 8081
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.HEALTH_PORT||8081)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node itself as the main process (not npm): SIGTERM reaches the worker, which drains and exits 0.
CMD ["node", "--import", "tsx", "src/worker.ts"]
