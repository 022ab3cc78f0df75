# Build stage: compiles TypeScript and better-sqlite3's native addon, then drops dev dependencies.
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: prepare would build before the sources are here; only the addon needs its script.
RUN npm ci --no-audit --no-fund --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund --ignore-scripts

# Runtime stage: production dependencies, compiled code and fixtures only; runs as the node user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    SANDBOX_DB=/data/sandbox.db \
    SANDBOX_FIXTURES=/app/fixtures/demo.json
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY fixtures ./fixtures
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD ["node", "dist/healthcheck.js"]
# node is PID 1 and handles SIGTERM itself: it closes the server and the database, then exits 0.
CMD ["node", "dist/server.js"]
