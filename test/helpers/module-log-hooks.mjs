// The ESM half of module-log.mjs (loader hooks run on their own thread). Each module is recorded as
// it loads, not as it is resolved: bin/reportd.js resolves the bundle's chunks itself for `check`.
import { appendFileSync } from 'node:fs';

export async function load(url, context, next) {
  const log = process.env.REPORTD_TEST_MODULE_LOG;
  const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (log && name) appendFileSync(log, `${name}\n`);
  // A chunk of the bundled CLI (scripts/build-cli.ts): its metafile says which sources and inlined
  // packages it holds.
  const chunk = /\/dist\/bundle\/(.+\.js)$/.exec(url)?.[1];
  if (log && chunk) appendFileSync(log, `bundle:${chunk}\n`);
  return next(url, context);
}
