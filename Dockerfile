# syntax=docker/dockerfile:1
#
# reportd: the daemon that syncs the Integration Reporting API into SQLite and emails PDF reports.
#
#   docker build -t reportd .
#   docker run -d --name reportd \
#     -v reportd-data:/data \
#     -v "$PWD/reportd.yaml:/config/reportd.yaml:ro" \
#     -e REPORTD_API_KEY=... -e REPORTD_API_SECRET=... -e SMTP_PASSWORD=... \
#     -p 9464:9464 reportd
#
# In the mounted config, keep state on the volume and turn the HTTP listener on:
#   store:  { path: /data/reportd.sqlite }
#   output: { dir: /data/reports }
#   http:   { port: 9464 }          # any fixed port: the HEALTHCHECK reads it from this file
# (relative paths would resolve against /config, which is usually mounted read-only).

# ---- build: compile TypeScript, then drop dev dependencies -------------------------------------
FROM node:22-bookworm-slim AS build
WORKDIR /app
# Puppeteer must not download its own browser: the runtime uses Debian's chromium-headless-shell.
ENV PUPPETEER_SKIP_DOWNLOAD=true
# Only used if better-sqlite3 has no prebuilt binary for this platform and must compile.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .puppeteerrc.cjs ./
# --ignore-scripts: `prepare` would build before the sources are copied; the one native module is
# built explicitly instead. Dependencies change less often than sources, so this layer caches well.
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts

# ---- runtime ------------------------------------------------------------------------------------
FROM node:22-bookworm-slim AS runtime
# chromium-headless-shell prints the PDFs (Debian's build of Chromium without the browser UI: the
# same PDFs for less CPU, memory and start-up than `chromium`); fonts cover Latin (DejaVu,
# Liberation), CJK and colour emoji so brand and engine names render in any script; tini is PID 1 so
# Chromium's child processes are reaped and SIGTERM reaches node.
RUN apt-get update \
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
