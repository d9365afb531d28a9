# syntax=docker/dockerfile:1
#
# The product image (target `runtime`, the default): the worker, the codec server and the
# command-line tool, compiled to JavaScript (`tsc -p tsconfig.build.json`) with the workflow bundle
# built once, and production dependencies only: no TypeScript runtime, no tools, no tests.
# Target `tools` adds the development tools on top of the sources (docker-compose.yml runs the
# supplier simulator from it); it is never deployed.
#
# Debian slim, never Alpine: the Temporal core bridge ships glibc builds only (no musl).

ARG NODE_IMAGE=node:20.20.2-bookworm-slim

# --- every dependency, for the build and the tools ---------------------------------------------
FROM ${NODE_IMAGE} AS dev-deps
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary matches the platform.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# --- production dependencies only -------------------------------------------------------------------
FROM dev-deps AS deps
RUN npm prune --omit=dev --no-audit --no-fund && npm cache clean --force

# --- the compiled product and the workflow bundle ---------------------------------------------------
FROM dev-deps AS build
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY tools ./tools
RUN npm run build

# --- the tools (simulator, local stacks): sources and every dependency --------------------------------
FROM build AS tools
ENV PATH=/app/node_modules/.bin:$PATH
USER node
CMD ["node", "--import", "tsx", "tools/simulator/main.ts"]

# --- runtime: the product -------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
# NODE_OPTIONS: V8's young generation bounded in every isolate of the worker from its start
# (MAX_SEMI_SPACE_MIB in src/build-worker.ts, which sets it for the workflow thread itself; the
# main thread's heap is sized before any code runs). Bench: bench/results/log.md "Memory of the worker".
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=1 \
    WORKFLOW_BUNDLE_PATH=/app/dist/workflows.bundle.js \
    CATALOGUE_DB_PATH=/data/catalogue.db
# Everything stays owned by root and read-only to the process user.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY bin ./bin
COPY --from=build /app/dist ./dist
# The command-line tool on PATH: `docker compose exec worker hotel-booking list` (it runs
# dist/starter.js here: no sources, no tsx). The codec server is `node dist/codec/main.js`.
RUN chmod 0755 bin/hotel-booking.js && ln -s /app/bin/hotel-booking.js /usr/local/bin/hotel-booking
# The official image's unprivileged user (uid 1000).
# The content catalogue (SQLite) lives in a volume the non-root user owns.
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
# METRICS_PORT, HEALTH_PORT (defaults of src/config/)
EXPOSE 9464 8081
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.HEALTH_PORT||8081)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node itself as the main process (not npm): SIGTERM reaches the worker, which drains and exits 0.
CMD ["node", "dist/worker.js"]
