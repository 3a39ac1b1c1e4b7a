# The production image: built with the dev tools, run with production dependencies only, as the `node` user.
# Why it looks like this: docs/decisions/005-production.md. Deploying it: docs/deployment.md.
# It must build with Docker (BuildKit) and with Podman/Buildah alike: tests/integration/deploy/podman-build.test.ts builds it
# with Buildah, and tests/integration/deploy/docker-replay.test.ts replays these steps outside any engine (refusing what
# Buildah refuses): every instruction used here must stay one that the replay knows how to run.

# 1. Dependencies, dev tools included: the build needs Remix's compiler, esbuild, PostCSS and Tailwind.
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# 2. The build: build/ (the server bundle) and public/build/ (hashed browser assets).
FROM deps AS build
COPY . .
RUN npm run build
# What the server reads at start from app/content (docs/decisions/016-updates-as-markdown.md): the updates and the
# owner's optional welcome mail (docs/newsletter.md#a-welcome-mail), gathered here so that the runtime's COPY names a
# folder that always exists. A COPY whose pattern matches nothing fails under Buildah and Podman.
RUN mkdir -p owner-content && cp -R app/content/updates owner-content/ && if [ -f app/content/welcome.md ]; then cp app/content/welcome.md owner-content/; fi

# 3. Production dependencies only. npm prune keeps what the lock marks devOptional or optional (TypeScript among them,
#    an optional peer of Remix); the script removes those too, but keeps production packages' native platform builds.
FROM deps AS prod-deps
COPY scripts/prune-production.mjs ./scripts/
RUN npm prune --omit=dev --no-audit --no-fund
RUN node scripts/prune-production.mjs

# 4. What runs: Node, the server, the build and production dependencies. No compiler, no secret (settings come from
#    `docker run -e`; .dockerignore keeps any .env out of the build).
FROM node:24-slim AS runtime
# npm is only there for the owner's tools (`docker exec portfolio npm run subscribers -- export --csv > file`): silent,
# so its banner does not end up in the redirected output, and it never looks for updates.
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0 DATA_DIR=/data NPM_CONFIG_LOGLEVEL=silent NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/package.json ./
COPY --from=build /app/server ./server/
COPY --from=build /app/scripts/healthcheck.mjs /app/scripts/subscribers.mjs /app/scripts/newsletter.mjs /app/scripts/load-build.mjs ./scripts/
# The server bundle alone: the build's metafiles (esbuild's reports) stay behind.
COPY --from=build /app/build/index.js ./build/
COPY --from=build /app/public ./public
# The owner's updates and welcome mail, gathered by the build stage: only the Markdown, none of the app's sources.
COPY --from=build /app/owner-content ./app/content/
# The volume's mount point must exist and belong to `node` before VOLUME, or Docker creates it owned by root; the
# same for the automatic backups' folder, where compose.yaml mounts a volume of its own (a new volume takes its owner).
RUN mkdir -p /data/backups && chown -R node:node /data
USER node
EXPOSE 3000
VOLUME ["/data"]
# node:24-slim has no curl: the check is a few lines of Node (fetch /healthz). No --start-period: dockerfilelint
# 1.8 misreads it, and the server listens within a second or two anyway.
HEALTHCHECK --interval=30s --timeout=5s --retries=3 CMD ["node", "scripts/healthcheck.mjs"]
# Exec form: Node is PID 1 and gets SIGTERM from `docker stop` itself (npm would not pass it on).
CMD ["node", "server/index.mjs"]
