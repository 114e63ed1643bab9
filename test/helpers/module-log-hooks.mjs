// The ESM half of module-log.mjs (loader hooks run on their own thread).
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(result.url)?.[1];
  if (process.env.REPORTD_TEST_MODULE_LOG && name)
    appendFileSync(process.env.REPORTD_TEST_MODULE_LOG, `${name}\n`);
  return result;
}
