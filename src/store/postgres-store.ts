import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { RunResult, SqlParams, Store, TransactionOptions } from './sql.js';
import { fromStoreDriver } from './store-unreachable.js';

/**
 * Numbers come back as numbers, as SQLite gives them: COUNT and BIGINT columns (epoch ms, ids) are
 * int8, which node-postgres returns as strings to avoid precision loss past 2^53 (no value reportd
 * stores comes near it). JSON columns come back as their text, as SQLite stores them, so
 * repositories parse them the same way on both engines.
 */
const INT8 = 20;
const NUMERIC = 1700;
const JSON_OID = 114;
const JSONB = 3802;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
    if (oid === JSON_OID || oid === JSONB) return (value: string) => value;
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as unknown as pg.CustomTypesConfig;

/** PostgreSQL numbers its placeholders: `?` → `$1, $2…`, outside quoted strings and comments. */
export function numberPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      const stop = end < 0 ? sql.length : end + 1;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end < 0 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (c === '?') {
      out += `$${++n}`;
    } else {
      out += c;
    }
  }
  return out;
}

/** Deadlocks and serialization failures: PostgreSQL rolled the transaction back; running it again is safe. */
const RETRYABLE = new Set(['40P01', '40001']);

/** The client a transaction holds, found through the async context by the statements inside it. */
interface Held {
  client: pg.PoolClient;
  savepoints: number;
}

/**
 * The `Store` of a PostgreSQL database through a `pg` pool. A transaction holds one pooled client for
 * its duration; statements issued inside it (found through the async context) run on that client.
 */
export function postgresStore(pool: pg.Pool, location: string): Store {
  const numbered = placeholderCache();
  const inside = new AsyncLocalStorage<Held>();
  const query = (sql: string, params: SqlParams) => {
    const client = inside.getStore()?.client ?? pool;
    return driver(
      client.query(
        numbered(sql),
        params.map((value) => (value === undefined ? null : value)),
      ),
    );
  };
  let closed = false;

  return {
    engine: 'postgres',
    location,
    async all<T>(sql: string, params: SqlParams = []): Promise<T[]> {
      return (await query(sql, params)).rows as T[];
    },
    async get<T>(sql: string, params: SqlParams = []): Promise<T | undefined> {
      return (await query(sql, params)).rows[0] as T | undefined;
    },
    async run(sql: string, params: SqlParams = []): Promise<RunResult> {
      return { changes: (await query(sql, params)).rowCount ?? 0 };
    },
    async exec(script: string): Promise<void> {
      const client = inside.getStore()?.client ?? pool;
      await driver(client.query(script));
    },
    transaction<T>(fn: () => Promise<T>, options: TransactionOptions = {}): Promise<T> {
      const current = inside.getStore();
      const lock = options.lock || undefined;
      return current ? inSavepoint(current, fn, lock) : inTransaction(pool, inside, fn, lock);
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

/** `numberPlaceholders`, remembered per statement text: a store runs the same few hundred over and over. */
function placeholderCache(): (sql: string) => string {
  const texts = new Map<string, string>();
  return (sql) => {
    let text = texts.get(sql);
    if (text === undefined) {
      text = numberPlaceholders(sql);
      texts.set(sql, text);
    }
    return text;
  };
}

/**
 * Every call to the driver: its failures are the store's, which an outage wait may outlast
 * (store-unreachable.ts); an error thrown by a transaction's own work is left as it is.
 */
function driver<T>(call: Promise<T>): Promise<T> {
  return call.catch((error: unknown) => {
    throw fromStoreDriver(error);
  });
}

/**
 * `opening` (BEGIN, a SAVEPOINT) and the lock go in one round trip: a simple query may hold several
 * statements, but no parameters, so the lock's name is sent as an escaped literal. The rate budget
 * opens a locked transaction for every request it grants.
 */
function open(client: pg.PoolClient, opening: string, lock: string | undefined) {
  return driver(
    client.query(
      lock === undefined
        ? opening
        : `${opening}; SELECT pg_advisory_xact_lock(hashtextextended(${client.escapeLiteral(lock)}, 0))`,
    ),
  );
}

/** A transaction inside a transaction: a savepoint on the client the outer one holds. */
async function inSavepoint<T>(current: Held, fn: () => Promise<T>, lock: string | undefined): Promise<T> {
  const name = `reportd_${++current.savepoints}`;
  await open(current.client, `SAVEPOINT ${name}`, lock);
  try {
    const result = await fn();
    await driver(current.client.query(`RELEASE SAVEPOINT ${name}`));
    return result;
  } catch (error) {
    await current.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
    throw error;
  }
}

/** A transaction on a client of its own, run again (up to five times) when PostgreSQL rolled it back. */
async function inTransaction<T>(
  pool: pg.Pool,
  inside: AsyncLocalStorage<Held>,
  fn: () => Promise<T>,
  lock: string | undefined,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await driver(pool.connect());
    let broken: Error | undefined;
    // Checked out, the client has no listener of the pool's: a connection that dies between two
    // statements of this transaction (a server restart) would be an unhandled 'error' event, i.e.
    // the end of the process. Kept here instead, it fails the transaction's next statement.
    const onError = (error: Error) => {
      broken ??= error;
    };
    client.on('error', onError);
    try {
      await open(client, 'BEGIN', lock);
      const result = await inside.run({ client, savepoints: 0 }, fn);
      await driver(client.query('COMMIT'));
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        // The connection itself failed: the pool must not hand it out again.
        broken = rollbackError as Error;
      }
      const code = (error as { code?: string }).code;
      if (!broken && code && RETRYABLE.has(code) && attempt < 5) continue;
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }
}

/**
 * The pool of a `postgres://` URL, with reportd's number and JSON parsing. An idle connection the
 * server closes (a restart: 57P01, a crash, a network cut) is dropped by the pool and opened again at
 * the next query; `onConnectionError` hears of it. Without a listener the pool's 'error' event would
 * end the process.
 */
export function postgresPool(
  url: string,
  options: { max?: number; onConnectionError?: (error: Error) => void } = {},
): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    types,
    // A database that does not answer must fail the command, not hang it.
    connectionTimeoutMillis: 10_000,
  });
  pool.on('error', (error) => options.onConnectionError?.(error));
  return pool;
}
