import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { tempDir } from '../delivery/smtp-helpers.js';
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

const CHECK = ['check', '--config', 'config/reportd.example.yaml'];

/** Runs the CLI on the Node.js with a compile cache, with `env` (and the secrets the example config names). */
function cacheRun(env: NodeJS.ProcessEnv) {
  const secrets = {
    REPORTD_API_KEY: 'test-key',
    REPORTD_API_SECRET: 'test-secret',
    SMTP_PASSWORD: 'test-password',
  };
  return (args: string[], extraEnv: Record<string, string> = {}) =>
    promisify(execFile)(cacheNode!, [BIN, ...args], { cwd: ROOT, env: { ...env, ...secrets, ...extraEnv } });
}

/** Node says (NODE_DEBUG_NATIVE=COMPILE_CACHE), for each file of the bundle, whether V8 took its cached code. */
function expectAllAccepted(stderr: string) {
  const verdicts = stderr.split('\n').filter((line) => line.includes('V8 code cache for'));
  expect(verdicts.length).toBeGreaterThan(10);
  expect(verdicts.filter((line) => !line.includes('was accepted'))).toEqual([]);
}

describe('the compile cache', () => {
  // `check` is compiled whole as it loads (bin/reportd.js says why), under V8 flags of its own: its
  // cache is a folder of its own, so neither it nor another command finds entries made under other
  // flags (which V8 would reject and Node would write again, on every alternation).
  it.skipIf(cacheNode === undefined)(
    'keeps check in a folder of its own, which its next run takes as it is',
    async () => {
      const cache = tempDir();
      try {
        const env = { ...process.env, XDG_CACHE_HOME: cache.dir };
        const run = cacheRun(env);
        await run(['status', '--help']);
        const first = await run(CHECK);
        expect(readdirSync(join(cache.dir, 'reportd', 'compile-cache'))).toHaveLength(2);
        const second = await run(CHECK, { NODE_DEBUG_NATIVE: 'COMPILE_CACHE,CODE_CACHE' });
        expect(second.stdout).toBe(first.stdout);
        expectAllAccepted(second.stderr);
        // Nor is any of Node's own modules compiled afresh: their code, compiled under V8's default
        // flags, is refused under check's (bin/reportd.js loads the ones check needs first).
        expect(second.stderr.split('\n').filter((line) => line.includes('is rejected'))).toEqual([]);
      } finally {
        cache.cleanup();
      }
    },
  );

  // Printed to a file (`reportd check > resolved.yaml`), check loads Node's writer for files after
  // its own files have loaded: by then every V8 flag the launcher set for them is back at its
  // default, so that module's built-in code is taken, not compiled afresh.
  it.skipIf(cacheNode === undefined)('refuses no built-in when check prints to a file', async () => {
    const cache = tempDir();
    try {
      const env = { ...process.env, XDG_CACHE_HOME: cache.dir };
      const out = join(cache.dir, 'resolved.yaml');
      const run = (debug: Record<string, string>) =>
        spawnSync('sh', ['-c', `exec "$0" "$@" > "${out}"`, cacheNode!, BIN, ...CHECK], {
          cwd: ROOT,
          env: { ...env, ...debug, REPORTD_API_KEY: 'k', REPORTD_API_SECRET: 's', SMTP_PASSWORD: 'p' },
          encoding: 'utf8',
          stdio: ['ignore', 'ignore', 'pipe'],
        }).stderr;
      run({});
      const stderr = run({ NODE_DEBUG_NATIVE: 'CODE_CACHE' });
      expect(readFileSync(out, 'utf8')).toContain('reportd.example.yaml: valid');
      // The recorder sees the file writer load.
      expect(stderr).toContain('Code cache of internal/fs/sync_write_stream');
      expect(stderr.split('\n').filter((line) => line.includes('is rejected'))).toEqual([]);
    } finally {
      cache.cleanup();
    }
  });

  // NODE_COMPILE_CACHE (a user's own choice) turns the cache on before the launcher can: it is one
  // folder for every command, so check is compiled as they are, and the commands' shared files
  // (commander, the command table) keep one entry that every command takes.
  it.skipIf(cacheNode === undefined)(
    "in NODE_COMPILE_CACHE's folder, check compiles as the other commands do",
    async () => {
      const cache = tempDir();
      try {
        const run = cacheRun({ ...process.env, NODE_COMPILE_CACHE: cache.dir });
        await run(CHECK);
        await run(['status', '--help']);
        expect(readdirSync(cache.dir)).toHaveLength(1);
        expectAllAccepted((await run(CHECK, { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' })).stderr);
      } finally {
        cache.cleanup();
      }
    },
  );

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
