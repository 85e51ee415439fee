# syntax=docker/dockerfile:1
# The API image: Node 20, dependencies from the lockfile, the Prisma client generated at build
# time, production dependencies only in the final stage, run as the unprivileged `node` user.
# TypeScript runs through tsx (a runtime dependency), as with `npm start`.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# `npm ci` runs our postinstall (prisma generate), which needs the schema and its config.
COPY package.json package-lock.json prisma.config.ts ./
COPY scripts ./scripts
COPY prisma ./prisma
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
# Drop dev dependencies; the generated client lives in src/generated and stays.
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/app/.data
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json /app/tsconfig.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/src ./src
# The migrations are applied at start-up.
COPY --from=build --chown=node:node /app/prisma ./prisma
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# Node is PID 1 and handles SIGTERM itself: in-flight requests finish, then it exits 0.
CMD ["node", "--import", "tsx", "src/server.ts"]
