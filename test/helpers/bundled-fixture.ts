import { rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const built = new Map<string, string>();

/**
 * The node arguments that run the fixture `file` (a .ts script of a test that spawns its own processes),
 * bundled with esbuild as scripts/build-cli.ts bundles the CLI, rather than `--import tsx file`: under
 * tsx each process resolves and transpiles every module of src/ it reaches, about 2.8 s of CPU per
 * process here against 1.2 s bundled, paid by every worker a test kills and starts again
 * (slack-kill-steps starts 45). Built from the sources on first use in each test process (a third of a
 * second), so it is never stale, into .test-fixtures/ in the package: its packages stay external and
 * load from node_modules, and PACKAGE_ROOT finds package.json above it as it does for dist/bundle/.
 */
export function bundledFixture(file: string): string[] {
  let out = built.get(file);
  if (out === undefined) {
    out = join(ROOT, '.test-fixtures', `${basename(file, '.ts')}-${process.pid}.mjs`);
    buildSync({
      entryPoints: [file],
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
      banner: {
        js: "import { createRequire as __fixtureRequire } from 'node:module';\nconst require = __fixtureRequire(import.meta.url);",
      },
    });
    built.set(file, out);
    const bundle = out;
    process.once('exit', () => rmSync(bundle, { force: true }));
  }
  return [out];
}
