// The ESM half of module-log.mjs (loader hooks run on their own thread).
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  const log = process.env.REPORTD_TEST_MODULE_LOG;
  const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(result.url)?.[1];
  if (log && name) appendFileSync(log, `${name}\n`);
  // A chunk of the bundled CLI (scripts/build-cli.ts): its metafile says which sources and inlined
  // packages it holds.
  const chunk = /\/dist\/bundle\/(.+\.js)$/.exec(result.url)?.[1];
  if (log && chunk) appendFileSync(log, `bundle:${chunk}\n`);
  return result;
}
