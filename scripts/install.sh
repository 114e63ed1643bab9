#!/usr/bin/env bash
# Installs what reportd needs on a Debian or Ubuntu machine, then its npm dependencies:
#   chromium-headless-shell
#                  renders the PDF reports (found at /usr/lib/chromium/chromium-headless-shell;
#                  REPORTD_CHROMIUM overrides). Where apt has no such package (Ubuntu), `chromium`
#                  instead; where a full chromium is already installed, the shell is added when apt
#                  can, and skipped with a note when it cannot (reportd then uses chromium).
#   poppler-utils  pdftotext/pdftoppm, used by the tests and to draw the README picture
#   qpdf           reads the digest PDF's bookmarks in the tests (never reportd's own reader)
#   fonts          DejaVu and Liberation, the fonts the report templates ask for
#   postgresql     initdb and pg_ctl, for the tests' throwaway PostgreSQL cluster (`npm test` runs the
#                  store, sync and outbox suites on it too; REPORTD_TEST_DATABASE_URL names a server
#                  to use instead, REPORTD_PG_BIN other binaries). reportd itself runs on SQLite without it.
#   faketime       libfaketime, which puts one of the tests' daemons 120 s ahead of the database's clock
#   openssh-server sshd, which the SFTP channel's tests start on a local port with their own config
# System packages are installed only when missing, with apt-get as root (or through sudo).
# Then `npm ci`, and for the tests the Node.js line the image ships when the machine runs another one
# (scripts/node-line.sh: into .node/, with better-sqlite3 built for it; once, then kept).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
browser=none # none: one is there; wanted: add the shell if apt can; needed: a browser must be installed
if [ -z "${REPORTD_CHROMIUM:-}" ] && [ ! -x /usr/lib/chromium/chromium-headless-shell ] \
  && ! command -v chromium-headless-shell >/dev/null 2>&1; then
  if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    browser=wanted
  else
    browser=needed
  fi
fi
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
command -v qpdf >/dev/null 2>&1 || missing+=(qpdf)
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
[ -d /usr/share/fonts/truetype/liberation2 ] || [ -d /usr/share/fonts/truetype/liberation ] || missing+=(fonts-liberation2)
if [ -z "${REPORTD_TEST_DATABASE_URL:-}" ] && [ -z "${REPORTD_PG_BIN:-}" ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  missing+=(postgresql)
fi
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ] || ls /usr/lib/*/faketime/libfaketime.so.1 >/dev/null 2>&1 || missing+=(faketime)

if [ "${#missing[@]}" -gt 0 ] || [ "$browser" != none ]; then
  if [ "$(id -u)" = 0 ]; then sudo=(); elif command -v sudo >/dev/null 2>&1; then sudo=(sudo); else sudo=(none); fi
  if ! command -v apt-get >/dev/null 2>&1 || [ "${sudo[0]:-}" = none ]; then
    if [ "${#missing[@]}" -gt 0 ] || [ "$browser" = needed ]; then
      [ "$browser" = needed ] && missing+=(chromium-headless-shell)
      echo "reportd install: system packages needed: ${missing[*]}"
      echo "reportd install: please install them with your package manager (as root), then run this again" >&2
      exit 1
    fi
    echo "reportd install: chromium-headless-shell not installed (no apt-get as root); reportd uses chromium"
  else
    "${sudo[@]}" apt-get update -qq
    if [ "$browser" != none ]; then
      if apt-cache show chromium-headless-shell >/dev/null 2>&1; then
        missing+=(chromium-headless-shell)
      elif [ "$browser" = needed ]; then
        missing+=(chromium)
      fi
    fi
    if [ "${#missing[@]}" -gt 0 ]; then
      echo "reportd install: system packages needed: ${missing[*]}"
      DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
  fi
fi

# .puppeteerrc.cjs skips puppeteer's own browser download because a system Chromium is now present.
npm ci --no-audit --no-fund
bash scripts/node-line.sh
