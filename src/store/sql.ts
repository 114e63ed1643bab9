/**
 * The seam between reportd and its database. Repositories (one file per table group in this folder)
 * take a `Store` and run plain, portable SQL through it; nothing outside `store/` sees a driver.
 *
 * One SQL text serves both engines: `?` placeholders (numbered for PostgreSQL by the driver), no
 * engine-only functions, `RETURNING` instead of last-insert ids, `ON CONFLICT` instead of
 * `INSERT OR …`, and a `rowid` column that PostgreSQL tables get explicitly where SQLite has it
 * implicitly (see migrations/postgres-ddl.ts). Where the engines must differ (a lock, a JSON table
 * function) a repository asks `store.engine`.
 */

export type Engine = 'sqlite' | 'postgres';

export type SqlParams = readonly unknown[];

export interface RunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
}

/** What every repository function needs: statements, inside or outside a transaction. */
export interface SqlRunner {
  readonly engine: Engine;
  /** Every row the statement returns. */
  all<T>(sql: string, params?: SqlParams): Promise<T[]>;
  /** The first row, or undefined. */
  get<T>(sql: string, params?: SqlParams): Promise<T | undefined>;
  run(sql: string, params?: SqlParams): Promise<RunResult>;
}

export interface TransactionOptions {
  /**
   * Names a lock held until the transaction ends, for work that must not interleave across processes
   * (the rate budget of one API key, one snapshot's state). SQLite's write transaction already
   * excludes every other writer, so only PostgreSQL takes it (an advisory transaction lock).
   */
  lock?: string;
}

export interface Store extends SqlRunner {
  /**
   * Where the data lives, for messages: the database file's absolute path, or
   * `postgres://user@host:port/db` (never the password).
   */
  readonly location: string;
  /**
   * Runs `fn` in one write transaction and commits when it resolves (rolls back when it throws).
   * Every statement `fn` issues through this store, directly or through repositories, runs inside it
   * (the transaction follows the async context); a transaction opened inside another becomes a
   * savepoint of it. SQLite: BEGIN IMMEDIATE, and other async work of this process waits for the
   * commit, since one connection serves the whole process.
   */
  transaction<T>(fn: () => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Runs DDL text (several statements, no parameters): migrations only. */
  exec(script: string): Promise<void>;
  /** Idempotent: the daemon's shutdown and a finally block may both close it. */
  close(): Promise<void>;
}

/** Runs `fn` in one write transaction of `store` (see `Store.transaction`). */
export function inTransaction<T>(
  store: Store,
  fn: () => Promise<T>,
  options?: TransactionOptions,
): Promise<T> {
  return store.transaction(fn, options);
}
