#!/usr/bin/env bash
# `npm test` and `npm run test:pg`: vitest on the Node.js line the image ships (the Dockerfile's
# `FROM node:<major>-…`), so what ships is what is tested. On a machine whose own Node.js is another
# line, scripts/install.sh put that line in `.node/<major>/` (scripts/node-line.sh): its bin goes
# first in PATH, so every process the tests start (`node`, `npx reportd`, process.execPath) runs on
# it too. Without it the suite runs on the machine's Node.js, said in one line.
# `npx vitest …` and `npm run test:unit` run on the machine's Node.js.
set -euo pipefail
cd "$(dirname "$0")/.."

major="$(sed -n 's/^FROM node:\([0-9][0-9]*\)-.*/\1/p' Dockerfile | head -1)"
if [ "$(node -p 'process.versions.node.split(".")[0]')" != "$major" ]; then
  if [ -x ".node/$major/bin/node" ]; then
    PATH="$PWD/.node/$major/bin:$PATH"
    export PATH
  else
    echo "reportd tests: Node.js $major, the line the image ships, is not in .node/$major (\`bash scripts/install.sh\` puts it there): testing on this machine's Node.js $(node --version)" >&2
  fi
fi
# Node ≥ 22.1 keeps compiled code here between runs: vitest starts its workers afresh every run, and
# each would compile vitest, puppeteer, exceljs… again. In the checkout (not the shared temporary
# folder, where another user could plant code); test/helpers/worker-env.ts keeps it from the processes
# the tests start. Node 20 ignores it.
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$PWD/node_modules/.cache/reportd-tests/compile-cache}"
echo "reportd tests: Node.js $(node --version)"
exec node node_modules/vitest/vitest.mjs run "$@"
