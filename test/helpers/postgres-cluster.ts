import { execFile, execFileSync } from 'node:child_process';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway PostgreSQL cluster for the tests: initdb into a temp dir, pg_ctl start on a free
 * 127.0.0.1 port, and at the end pg_ctl stop -m immediate and the dirs removed. Nothing of it is
 * meant to survive the run, so durability is switched off (fsync, synchronous_commit,
 * full_page_writes): a crash loses only data the next run would throw away anyway.
 */
export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`: the superuser, on the maintenance database. */
  readonly adminUrl: string;
  readonly port: number;
  /** Stops the server and removes its dirs. Safe to call twice. */
  stop(): void;
  /** `pg_ctl restart -m MODE`: every connection is cut (57P01 for `fast`), the server back on the same port. */
  restart(mode: 'fast' | 'immediate'): void;
  /**
   * The same restart without blocking this process: servers the test runs in-process (the sandbox)
   * keep answering while PostgreSQL is down, as a real API would.
   */
  restartInBackground(mode: 'fast' | 'immediate'): Promise<void>;
  /** `pg_ctl stop -m MODE`: the server is down (connections refused) until `start()`. */
  down(mode: 'fast' | 'immediate'): void;
  /** Starts the server again after `down()`, on the same port. */
  up(): void;
}

/** The binaries' folder: `REPORTD_PG_BIN`, else the newest `/usr/lib/postgresql/<major>/bin`. */
export function findPostgresBin(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.REPORTD_PG_BIN;
  if (override) {
    if (!existsSync(join(override, 'initdb')) || !existsSync(join(override, 'pg_ctl'))) {
      throw new Error(`REPORTD_PG_BIN=${override} has no initdb and pg_ctl`);
    }
    return override;
  }
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+(\.\d+)?$/.test(name) && existsSync(join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))
    : [];
  const newest = majors[0];
  if (newest === undefined) {
    throw new Error(
      'PostgreSQL server binaries not found (no /usr/lib/postgresql/<version>/bin/initdb): run `bash scripts/install.sh`, set REPORTD_PG_BIN, or set REPORTD_TEST_DATABASE_URL to a server to use',
    );
  }
  return join(root, newest, 'bin');
}

/** A port the kernel just gave out on 127.0.0.1; pg_ctl start is retried if another process takes it first. */
async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * initdb refuses to run as root ("cannot be run as root"), so as root every server command runs as
 * the `postgres` system user that Debian's package creates, and owns the temp dirs.
 */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error(
      "PostgreSQL test cluster: running as root, but there is no `postgres` system user to run initdb as (install Debian's postgresql package, or set REPORTD_TEST_DATABASE_URL)",
    );
  }
}

function lastLogLine(logFile: string): string {
  if (!existsSync(logFile)) return '';
  const lines = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  return lines.at(-1)?.trim() ?? '';
}

/**
 * Starts a fresh cluster. Throws one line naming what failed; leaves nothing behind when it does.
 * `durableCommits`: keep `synchronous_commit = on` (PostgreSQL's default), for tests that crash the
 * server (`-m immediate`) and count what a commit it acknowledged kept; off, the last commits before
 * the crash are lost, as PostgreSQL documents for that setting.
 */
export async function startPostgresCluster(
  settings: { durableCommits?: boolean } = {},
): Promise<PostgresCluster> {
  const bin = findPostgresBin();
  const owner = serverUser();
  const base = mkdtempSync(join(tmpdir(), 'reportd-pg-'));
  const dataDir = join(base, 'data');
  const socketDir = join(base, 'socket');
  const logFile = join(base, 'server.log');
  mkdirSync(socketDir);
  if (owner) {
    chownSync(base, owner.uid, owner.gid);
    chownSync(socketDir, owner.uid, owner.gid);
  }

  // As root, `runuser -u postgres --` drops to the server's user; cwd is the temp dir because
  // postgres cannot enter a root-owned checkout and would warn about it.
  const command = (tool: string, args: string[]): [string, string[]] =>
    owner ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
  const run = (tool: string, args: string[]): void => {
    const [file, argv] = command(tool, args);
    execFileSync(file, argv, { cwd: base, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  };
  const runInBackground = (tool: string, args: string[]): Promise<void> => {
    const [file, argv] = command(tool, args);
    return new Promise((resolve, reject) => {
      execFile(file, argv, { cwd: base, encoding: 'utf8' }, (error, _stdout, stderr) =>
        error ? reject(new Error(`${tool} failed: ${stderr.trim() || error.message}`)) : resolve(),
      );
    });
  };

  let started = false;
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stop);
    try {
      if (started) run('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w']);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  };
  // A run interrupted before its teardown still stops the server: no postgres outlives the tests.
  process.on('exit', stop);

  try {
    try {
      run('initdb', [
        '-D',
        dataDir,
        '-A',
        'trust',
        '-U',
        'postgres',
        '--no-sync',
        '-E',
        'UTF8',
        '--locale=C',
      ]);
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? '')
        .trim()
        .split('\n')
        .at(-1);
      throw new Error(`PostgreSQL test cluster: initdb (${bin}) failed: ${stderr || String(error)}`);
    }
    appendFileSync(
      join(dataDir, 'postgresql.conf'),
      [
        '',
        '# reportd tests: a throwaway cluster, fast rather than durable',
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${socketDir}'`,
        'fsync = off',
        `synchronous_commit = ${settings.durableCommits ? 'on' : 'off'}`,
        'full_page_writes = off',
        'max_connections = 200',
        '',
      ].join('\n'),
    );

    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        run('pg_ctl', ['start', '-w', '-t', '60', '-D', dataDir, '-l', logFile, '-o', `-p ${port}`]);
        started = true;
        break;
      } catch (error) {
        // Another process may have taken the port between freePort() and the server's bind.
        if (attempt >= 3) {
          const why = lastLogLine(logFile) || String((error as { stderr?: unknown }).stderr ?? error).trim();
          throw new Error(`PostgreSQL test cluster did not start on 127.0.0.1:${port}: ${why}`);
        }
      }
    }
    const options = ['-o', `-p ${port}`];
    const restartArgs = (mode: string) => [
      'restart',
      '-w',
      '-t',
      '60',
      '-D',
      dataDir,
      '-l',
      logFile,
      '-m',
      mode,
      ...options,
    ];
    return {
      adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
      port,
      stop,
      restart: (mode) => run('pg_ctl', restartArgs(mode)),
      restartInBackground: (mode) => runInBackground('pg_ctl', restartArgs(mode)),
      down: (mode) => run('pg_ctl', ['stop', '-w', '-t', '60', '-D', dataDir, '-m', mode]),
      up: () => run('pg_ctl', ['start', '-w', '-t', '60', '-D', dataDir, '-l', logFile, ...options]),
    };
  } catch (error) {
    stop();
    throw error;
  }
}
