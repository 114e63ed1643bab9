import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
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
 * second), so it is never stale, into .test-fixtures/ in the package (named by a hash of the bundle): its
 * packages stay external and load from node_modules, and PACKAGE_ROOT finds package.json above it as
 * it does for dist/bundle/.
 */
export function bundledFixture(file: string): string[] {
  let out = built.get(file);
  if (out === undefined) {
    const [bundle] = buildSync({
      entryPoints: [file],
      bundle: true,
      write: false,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
      banner: {
        js: "import { createRequire as __fixtureRequire } from 'node:module';\nconst require = __fixtureRequire(import.meta.url);",
      },
    }).outputFiles;
    // Named by its content: test processes building the same fixture at once share one file, written
    // whole (a rename) before any of them runs it.
    const hash = createHash('sha256').update(bundle!.contents).digest('hex').slice(0, 16);
    out = join(ROOT, '.test-fixtures', `${basename(file, '.ts')}-${hash}.mjs`);
    if (!existsSync(out)) {
      mkdirSync(dirname(out), { recursive: true });
      const partial = `${out}.${process.pid}`;
      writeFileSync(partial, bundle!.contents);
      renameSync(partial, out);
    }
    built.set(file, out);
  }
  return [out];
}
