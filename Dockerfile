# Build stage: compiles TypeScript and better-sqlite3's native addon, drops dev dependencies, then lays
# out the runtime's whole file system in /rootfs: Node's binary, the shared libraries it and the addon
# link (as ldd lists them, so any architecture works), the node user, /data and /tmp.
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
# The addon's sources, objects and static library stay here: only the built .node file runs.
RUN cd node_modules/better-sqlite3 \
 && find build -mindepth 1 -not -path build/Release -not -path build/Release/better_sqlite3.node -delete \
 && rm -rf deps src
RUN mkdir -p /rootfs/usr/local/bin /rootfs/etc /rootfs/data /rootfs/tmp \
 && cp /usr/local/bin/node /rootfs/usr/local/bin/node \
 && for lib in $( (ldd /usr/local/bin/node; ldd node_modules/better-sqlite3/build/Release/better_sqlite3.node) | grep -o '/[^ ]*\.so[^ ]*' | sort -u); do \
      cp --parents -L "$lib" /rootfs; \
    done \
 && echo 'root:x:0:0:root:/root:/sbin/nologin' > /rootfs/etc/passwd \
 && echo 'node:x:1000:1000:node:/home/node:/sbin/nologin' >> /rootfs/etc/passwd \
 && printf 'root:x:0:\nnode:x:1000:\n' > /rootfs/etc/group \
 && chown 1000:1000 /rootfs/data \
 && chmod 1777 /rootfs/tmp

# Runtime stage: nothing but Node, its libraries, production dependencies, compiled code, fixtures and
# the contract files; no shell, no package manager. It runs as the node user (numeric, so Kubernetes'
# runAsNonRoot can check it) and writes only to /data (the database volume) and /tmp, so it runs with
# a read-only root file system (docs/image.md).
FROM scratch
ARG VERSION=0.1.0
ARG SOURCE=""
LABEL org.opencontainers.image.title="tradebill-sandbox" \
      org.opencontainers.image.description="A stateful sandbox of a Brazilian receivables platform" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="UNLICENSED" \
      org.opencontainers.image.source="${SOURCE}"
COPY --from=build /rootfs /
ENV PATH=/usr/local/bin \
    NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    SANDBOX_DB=/data/sandbox.db \
    SANDBOX_FIXTURES=/app/fixtures/demo.json
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY fixtures ./fixtures
COPY contract ./contract
USER 1000:1000
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD ["node", "dist/healthcheck.js"]
# node is PID 1 and handles SIGTERM itself: it closes the server and the database, then exits 0.
CMD ["node", "dist/server.js"]
