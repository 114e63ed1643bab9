import { AsyncLocalStorage } from 'node:async_hooks';
import type Database from 'better-sqlite3';
import type { RunResult, SqlParams, Store, TransactionOptions } from './sql.js';

type Statement = Database.Statement<unknown[]>;

/**
 * One async mutex per database file and process (see `turnsByFile`): SQLite runs one transaction per
 * connection, and a process's async tasks (the sync, the outbox worker, the HTTP server) share that
 * connection.
 */
class Turn {
  private tail: Promise<void> = Promise.resolve();
  held = false;

  async take(): Promise<() => void> {
    const before = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await before;
    this.held = true;
    return () => {
      this.held = false;
      release();
    };
  }

  /** Resolves once no transaction holds the connection. */
  async free(): Promise<void> {
    while (this.held) await this.tail;
  }
}

/**
 * The turns of this process, by database file. Connections of one process to one file (two
 * `openStore` of the same path: the tests' concurrent workers, a daemon that opens the store again)
 * must take the same turn: better-sqlite3 waits for the file's write lock synchronously, so a
 * connection whose BEGIN IMMEDIATE waited on another connection's open transaction in this process
 * would block the very event loop that transaction needs to commit, for busy_timeout, then fail.
 */
const turnsByFile = new Map<string, { turn: Turn; connections: number }>();

function turnOf(file: string): { turn: Turn; release(): void } {
  if (file === ':memory:') return { turn: new Turn(), release() {} };
  let entry = turnsByFile.get(file);
  if (!entry) {
    entry = { turn: new Turn(), connections: 0 };
    turnsByFile.set(file, entry);
  }
  entry.connections++;
  const shared = entry;
  return {
    turn: shared.turn,
    release() {
      if (--shared.connections === 0 && turnsByFile.get(file) === shared) turnsByFile.delete(file);
    },
  };
}

/** better-sqlite3 takes numbers, strings, bigints, buffers and null: not booleans, not undefined. */
function bind(params: SqlParams): unknown[] {
  return params.map((value) =>
    value === undefined ? null : typeof value === 'boolean' ? Number(value) : value,
  );
}

/**
 * The `Store` of a SQLite file through better-sqlite3. The driver is synchronous; the seam is not,
 * so that the same repositories run on PostgreSQL. A statement outside any transaction runs at once
 * unless a transaction of another async task holds the connection, then after its commit.
 */
export function sqliteStore(db: Database.Database, file: string): Store {
  // better-sqlite3 compiles a statement at every `prepare`: the hot ones (request log, payloads) run
  // thousands of times per pass.
  const statements = new Map<string, Statement>();
  const prepare = (sql: string): Statement => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const inside = new AsyncLocalStorage<{ savepoints: number }>();
  const { turn, release: releaseTurn } = turnOf(file);
  let closed = false;

  // Checked again right before each statement runs (synchronously after the last await), so a
  // statement never lands inside a transaction another task opened meanwhile.
  const mustWait = (): boolean => turn.held && !inside.getStore();

  const store: Store = {
    engine: 'sqlite',
    location: file,
    async all<T>(sql: string, params: SqlParams = []): Promise<T[]> {
      while (mustWait()) await turn.free();
      return prepare(sql).all(...bind(params)) as T[];
    },
    async get<T>(sql: string, params: SqlParams = []): Promise<T | undefined> {
      while (mustWait()) await turn.free();
      return prepare(sql).get(...bind(params)) as T | undefined;
    },
    async run(sql: string, params: SqlParams = []): Promise<RunResult> {
      while (mustWait()) await turn.free();
      return { changes: prepare(sql).run(...bind(params)).changes };
    },
    async exec(script: string): Promise<void> {
      while (mustWait()) await turn.free();
      db.exec(script);
    },
    async transaction<T>(fn: () => Promise<T>, _options?: TransactionOptions): Promise<T> {
      const current = inside.getStore();
      if (current) {
        const name = `reportd_${++current.savepoints}`;
        db.exec(`SAVEPOINT ${name}`);
        try {
          const result = await fn();
          db.exec(`RELEASE ${name}`);
          return result;
        } catch (error) {
          db.exec(`ROLLBACK TO ${name}`);
          db.exec(`RELEASE ${name}`);
          throw error;
        }
      }
      const release = await turn.take();
      try {
        // IMMEDIATE: the write lock is taken now (waiting busy_timeout for another process), so the
        // transaction never fails half-way on a lock upgrade.
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await inside.run({ savepoints: 0 }, fn);
          db.exec('COMMIT');
          return result;
        } catch (error) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw error;
        }
      } finally {
        release();
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await turn.free();
      db.close();
      releaseTurn();
    },
  };
  return store;
}
