/**
 * Bundles the CLI into dist/bundle/ (`npm run build` runs it after tsc; bin/reportd.js runs its
 * output). Node 20 resolves and evaluates each ES module file on its own, and `reportd check` reaches
 * a few hundred of them (the config schema, yaml, handlebars, zod): one bundled file per command,
 * with the pure-JS packages those commands need inside it, starts in a fraction of that time.
 *
 * Each command's module stays behind a dynamic import (src/cli/commands.ts), so esbuild splits it into
 * its own chunk: `--version` and `--help` evaluate the command table and the commands' declarations,
 * nothing of their work. Packages not listed in INLINE stay external and are loaded from node_modules
 * as before: native ones (better-sqlite3, duckdb, resvg) must, pino must (its worker threads load
 * files by path), and the rarely used ones (the AWS SDK, ssh2, Slack's client, the MCP SDK) may.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import Handlebars from 'handlebars';
import { TEMPLATE_OPTIONS } from '../src/report/packaged-templates.js';

/**
 * Pure-JS packages parsed once inside the bundle. The first six are on the paths of `check`, `--help`
 * and the config. The rest are the renderer's, the workbook's, the mailer's and PostgreSQL's: each is
 * hundreds of files in node_modules (pdf-lib 137, puppeteer-core and its deps more), and Node finding,
 * reading and linking them one by one cost a process that loads them all about 1.1 s of CPU, even
 * with the compile cache, against about 0.5 s bundled (a `render` 1.27 → 1.06 s, a `deliver`
 * 1.86 → 1.57 s in the suite); inside the bundle they are a few chunks, still only loaded by the
 * commands that use them (test/cli/command-loads.test.ts).
 */
const INLINE = new Set([
  'commander',
  'croner',
  'handlebars',
  'intl-messageformat',
  'yaml',
  'zod',
  'exceljs',
  'jpeg-js',
  'nodemailer',
  'pdf-lib',
  'pg',
  'pngjs',
  'puppeteer-core',
  'saxes',
]);

const root = fileURLToPath(new URL('../', import.meta.url));
const outdir = join(root, 'dist', 'bundle');
const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};
const external = Object.keys(dependencies).filter((name) => !INLINE.has(name));

/**
 * `await import('yaml')` of a CommonJS package inlined in a split bundle gets a chunk that exports only
 * `default` (esbuild cannot list a CommonJS module's names), where Node gives its named exports too.
 * A dynamic import of an inlined package is served a module that names them, as Node's own import of
 * the package names them at build time.
 */
const namedExports: Plugin = {
  name: 'named-exports',
  setup(build) {
    const names = new Map<string, string[]>();
    build.onResolve({ filter: /^[^./]/ }, async ({ path, kind }) => {
      if (kind !== 'dynamic-import' || !INLINE.has(path)) return undefined;
      // Resolved from scripts/, that is from the package's own node_modules, as the bundle's sources are.
      const namespace = (await import(path)) as object;
      names.set(
        path,
        Object.keys(namespace).filter((key) => key !== 'default' && /^[A-Za-z_$][\w$]*$/.test(key)),
      );
      return { path, namespace: 'named-exports' };
    });
    build.onLoad({ filter: /.*/, namespace: 'named-exports' }, ({ path }) => ({
      contents: `import * as m from '${path}';\nexport default m.default;\nexport const { ${names.get(path)!.join(', ')} } = m;\n`,
      resolveDir: root,
    }));
  },
};

/**
 * Code reportd never runs, left out of the inlined packages (about a fifth of what `check` would parse):
 * - zod's error messages in 40-odd languages (`z.locales`, ~360 KB): reportd writes its own messages
 *   and never calls `z.config(z.locales.…())`; English, zod's default, stays.
 * - `source-map` under handlebars (~60 KB): handlebars maps a compiled template back to its source only
 *   when given `srcName`, which reportd never passes, and without the package it uses its own
 *   string-only stand-in, so the compiled templates are the same.
 */
const leaveOut: Plugin = {
  name: 'leave-out',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, ({ importer }) =>
      /node_modules\/zod\//.test(importer) ? { path: 'zod-locales', namespace: 'left-out' } : undefined,
    );
    build.onResolve({ filter: /^source-map$/ }, ({ importer }) =>
      /node_modules\/handlebars\//.test(importer) ? { path: 'source-map', namespace: 'left-out' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'left-out' }, ({ path }) =>
      path === 'zod-locales'
        ? { contents: "export { default as en } from 'zod/v4/locales/en.js';\n", resolveDir: root }
        : { contents: 'module.exports = {};\n' },
    );
  },
};

/**
 * commander requires node:child_process as it loads, for running an executable subcommand
 * (`git-foo` style), which reportd never declares: the module (and net, dgram under it) would cost
 * every command a few ms at start. Its one use, `childProcess.spawn`, looks the module up when called.
 */
const lazyChildProcess: Plugin = {
  name: 'lazy-child-process',
  setup(build) {
    build.onLoad({ filter: /node_modules\/commander\/lib\/command\.js$/ }, ({ path }) => {
      const eager = "const childProcess = require('node:child_process');";
      const text = readFileSync(path, 'utf8');
      if (!text.includes(eager)) throw new Error(`${path} no longer requires child_process as expected`);
      const lazy =
        "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
      return { contents: text.replace(eager, lazy), loader: 'js' };
    });
  },
};

/**
 * The packaged templates compiled now, not by every render: src/report/precompiled-templates.ts is
 * served as the templates' compiled code (with the handlebars bundled here, the one that runs it),
 * each with the source it came from, so a file edited after the build is compiled at run time as
 * before (src/report/packaged-templates.ts). The report's and the email's: the ones a render or a
 * delivery compiles in every process.
 */
const precompiledTemplates: Plugin = {
  name: 'precompiled-templates',
  setup(build) {
    build.onLoad({ filter: /src\/report\/precompiled-templates\.ts$/ }, () => {
      const entries: string[] = [];
      for (const folder of ['report', 'report/partials', 'email']) {
        for (const name of readdirSync(join(root, 'templates', folder)).filter((f) => f.endsWith('.hbs'))) {
          const path = `${folder}/${name}`;
          const source = readFileSync(join(root, 'templates', path), 'utf8');
          const options = TEMPLATE_OPTIONS[path] ?? {};
          const spec = Handlebars.precompile(source, { ...options }) as unknown as string;
          const fields = `source: ${JSON.stringify(source)}, options: ${JSON.stringify(JSON.stringify(options))}`;
          entries.push(`${JSON.stringify(path)}: { ${fields}, spec: ${spec} }`);
        }
      }
      return { contents: `export const PRECOMPILED = {\n${entries.join(',\n')}\n};\n`, loader: 'js' };
    });
  },
};

/** `path`'s text with each `[from, to]` replaced, failing the build when a `from` is no longer there. */
function patched(path: string, edits: [string, string][]): { contents: string; loader: 'js' } {
  let text = readFileSync(path, 'utf8');
  for (const [from, to] of edits) {
    if (!text.includes(from)) throw new Error(`${path} no longer holds ${JSON.stringify(from)}`);
    text = text.replace(from, to);
  }
  return { contents: text, loader: 'js' };
}

/**
 * exceljs evaluates, as it loads, its streaming reader and writer (unzipper, archiver, bluebird,
 * es-abstract: about a hundred packages) and its CSV module (fast-csv, dayjs), which reportd, writing
 * a workbook whole, never calls: they are evaluated when first used instead, about 30 ms less for
 * each workbook render. What they do when used is unchanged.
 */
const lazyExcelParts: Plugin = {
  name: 'lazy-excel-parts',
  setup(build) {
    build.onLoad({ filter: /node_modules\/exceljs\/lib\/exceljs\.nodejs\.js$/ }, ({ path }) =>
      patched(path, [
        [
          "WorkbookWriter: require('./stream/xlsx/workbook-writer'),",
          "get WorkbookWriter() { return require('./stream/xlsx/workbook-writer'); },",
        ],
        [
          "WorkbookReader: require('./stream/xlsx/workbook-reader'),",
          "get WorkbookReader() { return require('./stream/xlsx/workbook-reader'); },",
        ],
      ]),
    );
    build.onLoad({ filter: /node_modules\/exceljs\/lib\/doc\/workbook\.js$/ }, ({ path }) =>
      patched(path, [
        ["const CSV = require('../csv/csv');", ''],
        ['this._csv = new CSV(this);', "this._csv = new (require('../csv/csv'))(this);"],
      ]),
    );
  },
};

/**
 * JSZip (under exceljs) deflates a workbook's parts with pako, zlib ported to JavaScript: a third of
 * an xlsx render's CPU. Node's own zlib, at the same level, does it natively; the parts are the
 * same, their compressed bytes are zlib's.
 */
const nativeDeflate: Plugin = {
  name: 'native-deflate',
  setup(build) {
    build.onLoad({ filter: /node_modules\/jszip\/lib\/flate\.js$/ }, ({ path }) =>
      patched(path, [
        [
          'FlateWorker.prototype._createPako = function () {',
          `FlateWorker.prototype._createPako = function () {
    if (this._pakoAction === "Deflate") {
        var self = this;
        var zlib = require("node:zlib");
        var level = this._pakoOptions.level || -1;
        var parts = [];
        this._pako = {
            push: function (data, last) {
                if (data.length) parts.push(data);
                if (!last) return;
                var out = zlib.deflateRawSync(Buffer.concat(parts), { level: level });
                parts = [];
                self.push({ data: new Uint8Array(out.buffer, out.byteOffset, out.length), meta: self.meta });
            }
        };
        return;
    }`,
        ],
      ]),
    );
  },
};

const BANNER =
  "import { createRequire as __reportdRequire } from 'node:module';\nconst require = __reportdRequire(import.meta.url);";

await rm(outdir, { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: root,
  entryPoints: { reportd: join(root, 'src', 'cli', 'main.ts') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  // A package's subpaths (`nodemailer/lib/…`) are external with it.
  external: external.flatMap((name) => [name, `${name}/*`]),
  // The inlined CommonJS packages (handlebars, commander) call require() for Node's built-ins.
  banner: { js: BANNER },
  sourcemap: 'linked',
  // Whitespace and syntax, not names: a third less for Node to parse on every start (what `check`
  // loads goes from 1.2 MB to 0.8 MB), and a bug's stack trace still names its functions.
  minifyWhitespace: true,
  minifySyntax: true,
  metafile: true,
  plugins: [namedExports, leaveOut, lazyChildProcess, precompiledTemplates, lazyExcelParts, nativeDeflate],
  logLevel: 'warning',
});
// esbuild's `__require` lives in one chunk, and only chunks that name `require` call it: the banner
// leaves the others (each would build a `require` for nothing, some forty times for `check`). A blank
// line takes its place, so the source maps' lines still match.
for (const file of Object.keys(metafile.outputs).filter((name) => name.endsWith('.js'))) {
  const path = join(root, file);
  const text = readFileSync(path, 'utf8');
  const body = text.slice(BANNER.length);
  if (text.startsWith(BANNER) && !/\brequire\b/.test(body)) writeFileSync(path, `\n${body}`);
}
// Which sources and packages each chunk holds: test/cli/command-loads.test.ts reads it.
writeFileSync(join(outdir, 'meta.json'), JSON.stringify(metafile));
// The top-level help as the bundled program prints it to a pipe (80 columns, no colours), for
// bin/reportd.js to print without loading commander and every command's declaration.
const help = execFileSync(process.execPath, [join(outdir, 'reportd.js'), '--help'], {
  cwd: root,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
writeFileSync(join(outdir, 'help.txt'), help);
process.stdout.write(`bundled the CLI into ${outdir}\n`);
