import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { BIN, ROOT, runCli } from '../helpers/cli.js';

/**
 * bin/reportd.js answers `--version` and the top-level help itself, without loading the bundled
 * program (test/cli/command-loads.test.ts checks that it loads nothing). What it prints must be what
 * the program prints: the same text on the same stream with the same exit code, compared with the
 * bundle run directly (commander's own answer), so the two cannot drift apart.
 */
const BUNDLE = join(ROOT, 'dist', 'bundle', 'reportd.js');

/** Runs a script of the built CLI with no TTY; what it printed and its exit code. */
function run(script: string, args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [script, ...args], { cwd: ROOT }, (error, stdout, stderr) =>
      resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
    );
  });
}

describe('the launcher answers as the program does', () => {
  it.each([['--version'], ['-V'], ['--help'], ['-h'], []])('reportd %s', async (...args: string[]) => {
    const [launcher, program] = await Promise.all([run(BIN, args), run(BUNDLE, args)]);
    expect(launcher).toEqual(program);
    // And it is an answer, not an error.
    expect(launcher.stdout + launcher.stderr).toMatch(
      args[0]?.startsWith('-V') || args[0] === '--version' ? VERSION : /Usage: reportd/,
    );
  });

  it('prints the version from package.json', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect((await runCli(['--version'])).stdout).toBe(`${version}\n`);
  });

  it('leaves a terminal wider than 80 columns to commander, which wraps to its width', async () => {
    // `script` gives the command a terminal; stty makes it 120 columns wide.
    const inTerminal = async (script: string) => {
      const { stdout } = await promisify(execFile)(
        'script',
        ['-qec', `stty cols 120; "${process.execPath}" "${script}" --help`, '/dev/null'],
        { cwd: ROOT },
      );
      return stdout.replaceAll('\r\n', '\n');
    };
    const [launcher, program] = await Promise.all([inTerminal(BIN), inTerminal(BUNDLE)]);
    expect(launcher).toBe(program);
    // One line at 120 columns, wrapped at 80.
    expect(launcher).toContain(
      'Syncs AI answer-engine reporting into SQLite snapshots and renders PDF and Excel reports.',
    );
    expect(readFileSync(join(ROOT, 'dist', 'bundle', 'help.txt'), 'utf8')).not.toBe(launcher);
  });
});

/** A Node.js with a compile cache (≥ 22.1): this one, or the line scripts/node-line.sh put in .node/. */
function compileCacheNode(): string | undefined {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 1)) return process.execPath;
  const lines = existsSync(join(ROOT, '.node')) ? readdirSync(join(ROOT, '.node')) : [];
  const line = lines.find((name) => /^\d+$/.test(name) && Number(name) >= 23);
  return line && existsSync(join(ROOT, '.node', line, 'bin', 'node'))
    ? join(ROOT, '.node', line, 'bin', 'node')
    : undefined;
}
const cacheNode = compileCacheNode();

describe('the compile cache', () => {
  // A user with no passwd entry and no HOME (a container run as an arbitrary uid, `env -i`): Node's
  // homedir() throws. setpriv switches to such a uid, which only root can.
  it.skipIf(cacheNode === undefined || process.getuid?.() !== 0)(
    'is only turned off when there is no home folder to keep it in: the command still runs',
    async () => {
      const { HOME: _home, XDG_CACHE_HOME: _cache, ...env } = process.env;
      const { stdout, stderr } = await promisify(execFile)(
        'setpriv',
        ['--reuid=54321', '--regid=54321', '--clear-groups', cacheNode!, BIN, 'status', '--help'],
        { cwd: ROOT, env },
      );
      expect(stderr).toBe('');
      expect(stdout).toMatch(/^Usage: reportd status/);
    },
  );
});
