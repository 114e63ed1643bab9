# syntax=docker/dockerfile:1
#
# reportd: the daemon that syncs the Integration Reporting API into SQLite and emails PDF reports.
#
#   bash scripts/build-image.sh        # docker build, or buildah where no engine answers
#   docker run -d --name reportd \
#     -v reportd-data:/data \
#     -v "$PWD/reportd.yaml:/config/reportd.yaml:ro" \
#     -e REPORTD_API_KEY -e REPORTD_API_SECRET -e SMTP_PASSWORD \
#     -p 9464:9464 localhost/reportd:latest
# (docs/operations.md "Docker"; scripts/check-image.sh runs these in CI.)
#
# In the mounted config, keep state on the volume and turn the HTTP listener on:
#   store:  { path: /data/reportd.sqlite }
#   output: { dir: /data/reports }
#   http:   { port: 9464 }          # any fixed port: the HEALTHCHECK reads it from this file
# (relative paths would resolve against /config, which is usually mounted read-only).

# ---- build: compile TypeScript, then drop dev dependencies -------------------------------------
FROM node:24-bookworm-slim AS build
WORKDIR /app
# Puppeteer must not download its own browser: the runtime uses Debian's chromium-headless-shell.
# better-sqlite3 compiles against the base image's own Node.js headers (/usr/local/include/node, in
# the official image and in scripts/image-base.sh's stand-in alike) when its prebuilt binary cannot
# be downloaded: node-gyp then needs no network either.
ENV PUPPETEER_SKIP_DOWNLOAD=true \
    npm_config_nodedir=/usr/local
# The compiler is only used if better-sqlite3 has no prebuilt binary reachable and must compile.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .puppeteerrc.cjs ./
# --ignore-scripts: `prepare` would build before the sources are copied; the one native module is
# built explicitly instead (JOBS=max: sqlite3.c and the binding compile side by side). Dependencies
# change less often than sources, so this layer caches well.
# The optional `npm_ca` build secret is a CA bundle npm trusts during this step only (a registry
# reached through a TLS-inspecting proxy; scripts/build-image.sh passes the host npm's own): it is
# mounted for the step, never stored in a layer.
RUN --mount=type=secret,id=npm_ca,required=false \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi \
 && npm ci --ignore-scripts --no-audit --no-fund && JOBS=max npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/build-cli.ts ./scripts/
# The packaged templates: the build compiles them into the bundle (scripts/build-cli.ts).
COPY templates ./templates
# Then what the runtime never loads (~80 MB): better-sqlite3's SQLite sources and object files (its
# compiled .node stays), the browser bundles of exceljs and pdf-lib (node loads their lib/cjs builds),
# and `puppeteer` with the TypeScript it drags in (cosmiconfig's peer): reportd drives the system
# browser through puppeteer-core, and asks `puppeteer` only for a browser it downloaded (none here).
RUN npm run build && npm prune --omit=dev --ignore-scripts \
 && cd node_modules \
 && rm -rf better-sqlite3/deps better-sqlite3/src better-sqlite3/build/Release/obj \
      better-sqlite3/build/Release/obj.target better-sqlite3/build/Release/sqlite3.a \
      better-sqlite3/build/Release/test_extension.node better-sqlite3/build/deps \
      exceljs/dist pdf-lib/dist puppeteer cosmiconfig typescript

# ---- runtime ------------------------------------------------------------------------------------
FROM node:24-bookworm-slim AS runtime
# chromium-headless-shell prints the PDFs (Debian's build of Chromium without the browser UI: the
# same PDFs for less CPU, memory and start-up than `chromium`); fonts cover Latin (DejaVu,
# Liberation), CJK and colour emoji so brand and engine names render in any script; tini is PID 1 so
# Chromium's child processes are reaped and SIGTERM reaches node.
# The serif CJK faces (~53 MB) are left out: the templates ask for sans fonts, and a serif theme font
# missing a CJK glyph falls back to the sans CJK face.
RUN echo 'path-exclude /usr/share/fonts/opentype/noto/NotoSerifCJK*' >/etc/dpkg/dpkg.cfg.d/reportd-fonts \
 && apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium-headless-shell fonts-dejavu-core fonts-liberation2 fonts-noto-cjk fonts-noto-color-emoji tini ca-certificates \
 && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production \
    REPORTD_CHROMIUM=/usr/lib/chromium/chromium-headless-shell \
    PUPPETEER_SKIP_DOWNLOAD=true \
    PUPPETEER_EXECUTABLE_PATH=/usr/lib/chromium/chromium-headless-shell \
    REPORTD_CONFIG=/config/reportd.yaml \
    XDG_CONFIG_HOME=/tmp/.chromium \
    XDG_CACHE_HOME=/tmp/.chromium

WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY templates ./templates
COPY config ./config

# `reportd` on PATH; a non-root user that owns only the data volume.
RUN chmod 0755 /app/bin/reportd.js \
 && ln -s /app/bin/reportd.js /usr/local/bin/reportd \
 && groupadd --system --gid 10001 reportd \
 && useradd --system --uid 10001 --gid reportd --home-dir /data --shell /usr/sbin/nologin reportd \
 && mkdir -p /data /config \
 && chown reportd:reportd /data

USER reportd
VOLUME ["/data"]
# The port of config/reportd.example.yaml; publish whichever `http.port` your config sets.
EXPOSE 9464

# The slim image has no curl: node's own fetch asks /healthz. The port and host come from the mounted
# config itself (not a second setting that could disagree with it); a config without a fixed
# http.port is reported as the reason in `docker inspect`.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "import('/app/dist/config/load.js').then(async ({ loadConfig }) => { const { http } = loadConfig(process.env.REPORTD_CONFIG); if (http.port === undefined || http.port === 0) throw new Error('set a fixed http.port in the config: the health check asks its /healthz'); const host = http.host === '0.0.0.0' || http.host === '::' ? '127.0.0.1' : http.host; const res = await fetch('http://' + (host.includes(':') ? '[' + host + ']' : host) + ':' + http.port + '/healthz', { signal: AbortSignal.timeout(4000) }); if (!res.ok) throw new Error('/healthz answered ' + res.status); }).then(() => process.exit(0), (error) => { console.error('unhealthy: ' + error.message); process.exit(1); })"]

# On SIGTERM the daemon lets an SMTP exchange in flight get its answer for smtp.shutdown_grace_seconds
# (default 75) so the answer is recorded and a restart does not resend. Docker kills after 10 s unless
# told otherwise: `docker stop -t 80`, `docker run --stop-timeout 80`, compose `stop_grace_period: 80s`.
ENTRYPOINT ["tini", "--"]
CMD ["reportd", "daemon", "--config", "/config/reportd.yaml"]
