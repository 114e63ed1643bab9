#!/usr/bin/env node
// Launcher: runs the bundled CLI (built by `npm run build`, which `npm ci` runs through `prepare`;
// scripts/build-cli.ts says why it is bundled). `reportd --version` and the top-level help are spawned
// often (cron jobs, editors, assistants) and say the same thing every time, so they are answered here,
// without loading commander and the command table: the version from package.json, the help as
// `npm run build` captured it from the bundled program itself (test/cli/launcher.test.ts checks both
// are what the program prints).
import { existsSync, readFileSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/bundle/reportd.js', import.meta.url);
const helpFile = new URL('../dist/bundle/help.txt', import.meta.url);
const args = process.argv.slice(2);

/**
 * The top-level help where commander would print it: stdout for `--help`/`-h`, stderr (exit 2, as
 * main.ts maps commander's usage errors) when no command is given. Only at the 80 columns it was
 * captured at: commander wraps to a terminal's own width, so a wider or narrower one gets commander.
 */
function helpAnswer() {
  if (args.length > 1 || (args.length === 1 && args[0] !== '--help' && args[0] !== '-h')) return undefined;
  const stream = args.length === 0 ? process.stderr : process.stdout;
  if (stream.isTTY && stream.columns !== undefined && stream.columns !== 80) return undefined;
  if (!existsSync(fileURLToPath(helpFile))) return undefined;
  return { stream, text: readFileSync(helpFile, 'utf8'), exitCode: args.length === 0 ? 2 : 0 };
}

/**
 * V8 compiles a function when it is first called, and Node's compile cache keeps only what was
 * compiled as a file loaded: the functions a run calls are compiled again on every run. For `check`
 * (spawned by editors and assistants on every save) that was a tenth of its time, so the files it
 * loads are compiled whole (V8's --no-lazy) and kept so; src/cli/check.ts turns the flag back once
 * they are loaded. V8's flags are part of the cache's version tag, set before the cache is: check's
 * cache is a folder of its own, never read by other commands, and V8 rejects (and Node rewrites) an
 * entry made under other flags. Without a cache of our own (none could be made, or
 * NODE_COMPILE_CACHE chose another), compiling whole would only cost: undone.
 */
function eagerCompile() {
  const v8 = process.getBuiltinModule?.('node:v8');
  if (!v8) return undefined;
  // Node's own modules come compiled under V8's default flags, which V8 refuses under others: each
  // would be compiled afresh, and whole. The ones check's files load are loaded first: node:net with
  // the BlockList its import reads, node:process, and `navigator`, which zod reads as it loads.
  process.getBuiltinModule('node:net').BlockList;
  process.getBuiltinModule('node:process');
  globalThis.navigator;
  v8.setFlagsFromString('--no-lazy');
  // check allocates some 20 MB of short-lived objects (zod's schemas and issues, yaml's nodes) in a
  // young generation that starts small and doubles as it fills: six scavenges, each copying what is
  // still alive. Grown sixteenfold instead (V8 reads the factor as it grows the space, so it applies
  // when set at run time), it takes two: about 5 % of check's instructions. The factor tags cached
  // code as --no-lazy does, so it is undone with it (and by src/cli/check.ts).
  v8.setFlagsFromString('--semi-space-growth-factor=16');
  return { undo: () => v8.setFlagsFromString('--lazy --semi-space-growth-factor=2') };
}

/**
 * Node resolves each import as it would a package's: the URL, the file's real path, the nearest
 * package.json for its module type. The bundle's chunks import one another by relative path only,
 * and all are ES modules: for `check`, which loads some forty of them, they are resolved here
 * directly (module.registerHooks, Node.js ≥ 22.15), a twentieth of its time. Anything else (the
 * packages left in node_modules, Node's own modules) is resolved as before.
 */
function resolveChunksDirectly() {
  const bundle = new URL('../dist/bundle/', import.meta.url).href;
  module.registerHooks?.({
    resolve: (specifier, context, next) =>
      specifier.startsWith('./') && context.parentURL?.startsWith(bundle)
        ? { url: new URL(specifier, context.parentURL).href, format: 'module', shortCircuit: true }
        : next(specifier, context),
  });
}

const help = helpAnswer();
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${version}\n`);
} else if (help) {
  help.stream.write(help.text);
  process.exitCode = help.exitCode;
} else if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('reportd: not built yet, run `npm run build` (or `npm ci`) first\n');
  process.exit(2);
} else {
  // Node ≥ 22.1 keeps the compiled code of the bundle's chunks on disk between runs; Node 20 has no
  // such cache and compiles them every time. In the user's own cache folder, not Node's default in the
  // shared temporary folder, where another local user could have made the folder first and placed
  // code there for this one to run. A folder that cannot be written only turns the cache off, and so
  // does no home at all (HOME unset for a user with no passwd entry: homedir() throws).
  if (module.enableCompileCache) {
    const eager = args[0] === 'check' ? eagerCompile() : undefined;
    try {
      const cacheHome = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
      const { status } = module.enableCompileCache(join(cacheHome, 'reportd', 'compile-cache'));
      if (status !== module.constants.compileCacheStatus.ENABLED) eager?.undo();
    } catch {
      // No cache then: the same program, compiled afresh.
      eager?.undo();
    }
  }
  if (args[0] === 'check') resolveChunksDirectly();
  await import(entry.href);
}
