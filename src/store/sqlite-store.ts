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

/**
 * How long a statement or a transaction waits for another process's write lock before it fails
 * with SQLite's own "database is locked" (what busy_timeout was: see `waitingForLock`).
 */
const LOCK_WAIT_MS = 5_000;

function isBusy(error: unknown): boolean {
  return String((error as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY');
}

/**
 * Runs `attempt` until it does not meet another process's lock, for up to `LOCK_WAIT_MS`, waiting
 * *asynchronously* between tries. SQLite's busy_timeout would wait inside the synchronous driver
 * call: 5 s with the event loop frozen — no timer, no /readyz, no heartbeat — and a sync pass that
 * met the lock on every request froze it for minutes, so the scheduler never ran to see the trouble.
 * The store opens its connection with busy_timeout 0 (db.ts) and waits here instead. `turn`, when
 * given, is checked synchronously right before every try: another task's transaction may have
 * started meanwhile, and a statement must not land inside it.
 */
async function waitingForLock<T>(
  turn: { mustWait(): boolean; free(): Promise<void> } | undefined,
  attempt: () => T,
): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  let pause = 2;
  for (;;) {
    while (turn?.mustWait()) await turn.free();
    try {
      return attempt();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, Math.max(1, deadline - Date.now()))));
    pause = Math.min(pause * 2, 50);
  }
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
  const prepare = statementCache(db);
  const inside = new AsyncLocalStorage<{ savepoints: number }>();
  const { turn, release: releaseTurn } = turnOf(file);
  let closed = false;

  // Checked again right before each statement runs (synchronously after the last await), so a
  // statement never lands inside a transaction another task opened meanwhile.
  const mustWait = (): boolean => turn.held && !inside.getStore();
  const outside = { mustWait, free: () => turn.free() };

  const store: Store = {
    engine: 'sqlite',
    location: file,
    async all<T>(sql: string, params: SqlParams = []): Promise<T[]> {
      return waitingForLock(outside, () => prepare(sql).all(...bind(params)) as T[]);
    },
    async get<T>(sql: string, params: SqlParams = []): Promise<T | undefined> {
      return waitingForLock(outside, () => prepare(sql).get(...bind(params)) as T | undefined);
    },
    async run(sql: string, params: SqlParams = []): Promise<RunResult> {
      return waitingForLock(outside, () => ({ changes: prepare(sql).run(...bind(params)).changes }));
    },
    async exec(script: string): Promise<void> {
      // Not retried: a script's statements commit one by one outside a transaction, so a retry could
      // run the first ones twice. Every caller runs its scripts inside `transaction` (migrations).
      while (mustWait()) await turn.free();
      db.exec(script);
    },
    transaction<T>(fn: () => Promise<T>, _options?: TransactionOptions): Promise<T> {
      const current = inside.getStore();
      return current ? inSavepoint(db, current, fn) : inTransaction(db, { turn, inside }, fn);
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

/**
 * better-sqlite3 compiles a statement at every `prepare`: the hot ones (request log, payloads) run
 * thousands of times per pass, so each text is prepared once per connection.
 */
function statementCache(db: Database.Database): (sql: string) => Statement {
  const statements = new Map<string, Statement>();
  return (sql) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
}

/** A transaction inside a transaction: a savepoint, rolled back and released when `fn` throws. */
async function inSavepoint<T>(
  db: Database.Database,
  current: { savepoints: number },
  fn: () => Promise<T>,
): Promise<T> {
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

/** An outermost transaction: it holds this process's turn on the file from BEGIN to COMMIT. */
async function inTransaction<T>(
  db: Database.Database,
  connection: { turn: Turn; inside: AsyncLocalStorage<{ savepoints: number }> },
  fn: () => Promise<T>,
): Promise<T> {
  const release = await connection.turn.take();
  try {
    // IMMEDIATE: the write lock is taken now (waited for as `waitingForLock` says, holding this
    // process's turn), so the transaction never fails half-way on a lock upgrade.
    await waitingForLock(undefined, () => db.exec('BEGIN IMMEDIATE'));
    try {
      const result = await connection.inside.run({ savepoints: 0 }, fn);
      db.exec('COMMIT');
      return result;
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  } finally {
    release();
  }
}
