// Preloaded with `node --import` by tests: appends every npm package a process loads (ESM imports and
// CommonJS requires) to the file named by REPORTD_TEST_MODULE_LOG, one name a line; and each chunk of
// the bundled CLI it loads, as `bundle:<path under dist/bundle/>`. With REPORTD_TEST_BUILTIN_LOG set,
// writes there, as the process exits, every public Node.js built-in module it loaded (`crypto`,
// `dns/promises`), however it was loaded (import, require, process.getBuiltinModule).
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const log = process.env.REPORTD_TEST_MODULE_LOG;
const record = (path) => {
  const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
  if (log && name) appendFileSync(log, `${name}\n`);
};
register(new URL('./module-log-hooks.mjs', import.meta.url));
const builtinLog = process.env.REPORTD_TEST_BUILTIN_LOG;
if (builtinLog) {
  process.on('exit', () => {
    const builtins = process.moduleLoadList
      .filter((entry) => entry.startsWith('NativeModule ') && !entry.startsWith('NativeModule internal/'))
      .map((entry) => entry.slice('NativeModule '.length));
    appendFileSync(builtinLog, builtins.map((name) => `${name}\n`).join(''));
  });
}
// With REPORTD_TEST_ZONE_LOG set, writes there, as the process exits, each time zone an
// Intl.DateTimeFormat was built for (the first one loads ICU's zone data).
const zoneLog = process.env.REPORTD_TEST_ZONE_LOG;
if (zoneLog) {
  const zones = [];
  const Format = Intl.DateTimeFormat;
  Intl.DateTimeFormat = new Proxy(Format, {
    construct(target, args) {
      zones.push(String(args[1]?.timeZone ?? '(local)'));
      return Reflect.construct(target, args);
    },
  });
  process.on('exit', () => appendFileSync(zoneLog, zones.map((zone) => `${zone}\n`).join('')));
}
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const loaded = load.call(this, request, parent, isMain);
  try {
    record(Module._resolveFilename(request, parent, isMain));
  } catch {
    // built-in module
  }
  return loaded;
};
