import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../delivery/smtp-helpers.js';
import { ROOT } from '../helpers/cli.js';

/**
 * `npm test` (scripts/test.sh) runs vitest on the Node.js line the Dockerfile ships, from `.node/`
 * where scripts/install.sh put it, so what ships is what is tested; without it, on this machine's
 * Node.js, said in one line. The checkout's one test writes down the Node.js vitest runs it on and the
 * `node` a process it starts gets.
 */
const run = promisify(execFile);
const major = /^FROM node:(\d+)-/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))![1]!;
const shipped = join(ROOT, '.node', major, 'bin', 'node');
const machineMajor = process.versions.node.split('.')[0];

let tmp: ReturnType<typeof tempDir> | undefined;
afterEach(() => tmp?.cleanup());

/** scripts/test.sh in a checkout of its own: the repository's script and Dockerfile, this node_modules. */
function checkout(withShippedNode: boolean): string {
  tmp = tempDir();
  mkdirSync(join(tmp.dir, 'scripts'));
  cpSync(join(ROOT, 'scripts', 'test.sh'), join(tmp.dir, 'scripts', 'test.sh'));
  cpSync(join(ROOT, 'Dockerfile'), join(tmp.dir, 'Dockerfile'));
  symlinkSync(join(ROOT, 'node_modules'), join(tmp.dir, 'node_modules'));
  if (withShippedNode) symlinkSync(join(ROOT, '.node'), join(tmp.dir, '.node'));
  writeFileSync(
    join(tmp.dir, 'probe.test.mjs'),
    `import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
it('runs', () => {
  const child = execFileSync('node', ['--version'], { encoding: 'utf8' }).trim();
  writeFileSync('versions.txt', process.version + ' ' + child);
});
`,
  );
  return tmp.dir;
}

/** Runs the checkout's test.sh from a shell whose `node` is this machine's: its output, and the probe's. */
async function testSh(dir: string) {
  const path = `${join(process.execPath, '..')}:${process.env.PATH}`;
  const { stdout, stderr } = await run('bash', [join(dir, 'scripts', 'test.sh'), 'probe.test.mjs'], {
    env: { ...process.env, PATH: path },
  });
  return { stdout, stderr, versions: readFileSync(join(dir, 'versions.txt'), 'utf8') };
}

describe('npm test on the Node.js line the image ships', () => {
  it.skipIf(!existsSync(shipped) || machineMajor === major)(
    `runs vitest, and the processes the tests start, on .node/${major}`,
    async () => {
      const { stdout, versions } = await testSh(checkout(true));
      const version = (await run(shipped, ['--version'])).stdout.trim();
      expect(stdout).toContain(`reportd tests: Node.js ${version}\n`);
      expect(versions).toBe(`${version} ${version}`);
    },
  );

  it.skipIf(machineMajor === major)(
    "says in one line that the shipped line is missing, and runs on this machine's Node.js",
    async () => {
      const { stderr, versions } = await testSh(checkout(false));
      expect(stderr).toBe(
        `reportd tests: Node.js ${major}, the line the image ships, is not in .node/${major} (\`bash scripts/install.sh\` puts it there): testing on this machine's Node.js ${process.version}\n`,
      );
      expect(versions).toBe(`${process.version} ${process.version}`);
    },
  );
});
