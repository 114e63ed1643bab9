import type { LeaseDialect } from './dialect/lease-dialect.js';
import { postgresLease } from './dialect/postgres.js';
import { sqliteLease } from './dialect/sqlite.js';
import { newToken } from './lease.js';
import type { LeaseStore } from './lease-store.js';

/**
 * The one implementation of a lease on a row: claim, renew and release, for the delivery queue, the
 * scheduler's job slots and the account leases alike. Each caller describes its table (`LeaseTable`)
 * and says what a claim means to it (which rows may be taken, what else a claim or a release
 * writes); the statements that take, extend and end a lease are written here, once, with the engines'
 * differences in dialect/.
 *
 * Every write of a claimant is fenced: it names the row's key and the claim's fence (a token new for
 * every claim, or the holder's name where one holder holds a row once), and checks the row is still
 * held; a write that matches no row is a stale claimant's, which changes nothing (queue/fence.ts).
 */

/** How a table's columns carry a lease. */
export interface LeaseTable {
  readonly name: string;
  /** The columns that name one row. */
  readonly key: readonly string[];
  /** Who holds the claim (a worker, an instance, a pass). */
  readonly holder: string;
  /** What every write of the claimant names besides the key: a per-claim token, or the holder. */
  readonly fence: string;
  /** When the lease ends (epoch ms). */
  readonly until: string;
  /** SQL true while the row is held (an in-flight state, not finished); absent: while it exists. */
  readonly held?: string;
}

/** A claim as its later writes name it: the row's key and the value of the table's fence column. */
export interface LeaseFence {
  readonly key: readonly unknown[];
  readonly token: string;
}

/** A piece of SQL inside a statement (`attempts + 1`), as opposed to a value passed as a parameter. */
export interface SqlExpression {
  readonly sql: string;
  readonly params: readonly unknown[];
}

export const expression = (sql: string, ...params: unknown[]): SqlExpression => ({ sql, params });

/** Columns a write sets, in order: each to a value or an expression. */
export type Assignments = readonly (readonly [column: string, value: unknown])[];

export function leaseDialect(store: Pick<LeaseStore, 'engine'>): LeaseDialect {
  return store.engine === 'postgres' ? postgresLease : sqliteLease;
}

const isExpression = (value: unknown): value is SqlExpression =>
  typeof value === 'object' && value !== null && 'sql' in value && 'params' in value;

function assignments(set: Assignments): SqlExpression {
  const params: unknown[] = [];
  const sql = set
    .map(([column, value]) => {
      if (!isExpression(value)) {
        params.push(value);
        return `${column} = ?`;
      }
      params.push(...value.params);
      return `${column} = ${value.sql}`;
    })
    .join(', ');
  return { sql, params };
}

const keyed = (table: LeaseTable) => table.key.map((column) => `${column} = ?`).join(' AND ');

function fenceOf(table: LeaseTable, fence: LeaseFence): SqlExpression {
  return { sql: `${keyed(table)} AND ${table.fence} = ?`, params: [...fence.key, fence.token] };
}

/**
 * A write of the claimant: `set` lands only while its claim still holds the row (`when`, by default
 * the table's `held`). False: the claim is no longer this claimant's, nothing was written.
 */
export async function fencedWrite(
  store: LeaseStore,
  table: LeaseTable,
  fence: LeaseFence,
  set: Assignments,
  when: string | undefined = table.held,
): Promise<boolean> {
  const values = assignments(set);
  const where = fenceOf(table, fence);
  const { changes } = await store.run(
    `UPDATE ${table.name} SET ${values.sql} WHERE ${where.sql}${when ? ` AND ${when}` : ''}`,
    [...values.params, ...where.params],
  );
  return changes === 1;
}

/**
 * The heartbeat's write: pushes the lease forward to `until` (a time, or an expression such as a
 * lease per state) while this claim holds the row. Nothing else moves: a renewal is the same work
 * going on, not a change of it.
 */
export function renewLease(
  store: LeaseStore,
  table: LeaseTable,
  fence: LeaseFence,
  until: number | SqlExpression,
): Promise<boolean> {
  return fencedWrite(store, table, fence, [[table.until, until]]);
}

/**
 * Ends the claim: what the claimant records of its work (`set`), and the lease ended at `until`
 * (null: no lease; a time: a lapsed lease another claim may take, as an interrupted job slot leaves).
 */
export function releaseLease(
  store: LeaseStore,
  table: LeaseTable,
  fence: LeaseFence,
  set: Assignments,
  until: number | null = null,
): Promise<boolean> {
  return fencedWrite(store, table, fence, [...set, [table.until, until]]);
}

/** Ends the claim by deleting the row: a table whose rows are nothing but leases. */
export async function deleteLease(store: LeaseStore, table: LeaseTable, fence: LeaseFence): Promise<boolean> {
  const where = fenceOf(table, fence);
  const { changes } = await store.run(`DELETE FROM ${table.name} WHERE ${where.sql}`, where.params);
  return changes === 1;
}

export interface ClaimNextOptions {
  holder: string;
  /** The fence of the new claim; a new token by default. */
  token?: string;
  until: number;
  /** The rows a claim may take, checked by the read and again by the write. */
  claimable: SqlExpression;
  /** Narrows the read only: what never changes on a row (its kind, its name, its destination). */
  among?: SqlExpression;
  /** Only this row. */
  key?: readonly unknown[];
  /** Columns read with each candidate and pinned by the claim, so what was read is true of the row won. */
  pin: readonly string[];
  order: string;
  /** What else the claim writes (a state, an attempt counted). */
  set: Assignments;
}

/**
 * Claims the first of the rows `claimable` admits, in `order` (a queue's next due row). One
 * conditional UPDATE per candidate re-checks `claimable` itself, so of two claimants racing for a
 * row exactly one wins it; the other goes on to the next candidate. Returns the row won (every
 * column) and the pinned columns as they were read, or undefined when there was nothing to take.
 */
export function claimNext<Row>(
  store: LeaseStore,
  table: LeaseTable,
  options: ClaimNextOptions,
): Promise<{ row: Row; read: Record<string, unknown> } | undefined> {
  const dialect = leaseDialect(store);
  const only = options.key ? `${keyed(table)} AND ` : '';
  const among = options.among ?? expression('1 = 1');
  const token = options.token ?? newToken();
  const columns = [...new Set([...table.key, ...options.pin])];
  return store.transaction(async () => {
    const candidates = await store.all<Record<string, unknown>>(
      `SELECT ${columns.join(', ')} FROM ${table.name}
       WHERE ${only}(${options.claimable.sql}) AND (${among.sql})
       ORDER BY ${options.order} LIMIT 10${dialect.lockCandidates}`,
      [...(options.key ?? []), ...options.claimable.params, ...among.params],
    );
    const claim: Assignments = [
      [table.holder, options.holder],
      ...(table.fence === table.holder ? [] : [[table.fence, token] as const]),
      [table.until, options.until],
      ...options.set,
    ];
    const values = assignments(claim);
    for (const candidate of candidates) {
      const pinned = [...table.key, ...options.pin.filter((column) => !table.key.includes(column))];
      const row = await store.get<Row>(
        `UPDATE ${table.name} SET ${values.sql}
         WHERE ${pinned.map((column) => `${column} = ?`).join(' AND ')} AND (${options.claimable.sql})
         RETURNING *`,
        [...values.params, ...pinned.map((column) => candidate[column]), ...options.claimable.params],
      );
      if (row) return { row, read: candidate };
    }
    return undefined;
  });
}

export interface ClaimKeyOptions<Row, Lost> {
  key: readonly unknown[];
  holder: string;
  /** The fence of the new claim when the table fences with a token (a new one by default). */
  token?: string;
  until: number;
  /**
   * Whether a row that is there may be taken: what a claim means to the caller (a lapsed lease, a
   * claim of its own, a holder whose process is gone).
   */
  free: (row: Row) => boolean;
  /** Columns the first claim writes besides key, holder and lease. */
  insert?: Assignments;
  /** Columns a takeover writes besides holder and lease. */
  takeover?: Assignments;
  /** Serialises claims of the key across processes (on PostgreSQL; SQLite's write lock does). */
  lock: string;
  /** Asked first, in the same transaction: a loss decided before the row is read. */
  refuse?: () => Promise<Lost | undefined>;
}

export type ClaimKeyResult<Row, Lost> =
  | { won: true; takeover: boolean }
  /** `row`: the claim as it stands (who holds it). */
  | { won: false; row: Row }
  | { won: false; refused: Lost };

/**
 * Claims the row `key`: inserted when there is none, taken over when `free` says the claim there
 * may be (conditional on the holder and lease read, so a claim renewed meanwhile is not taken).
 */
export function claimKey<Row extends Record<string, unknown>, Lost = never>(
  store: LeaseStore,
  table: LeaseTable,
  options: ClaimKeyOptions<Row, Lost>,
): Promise<ClaimKeyResult<Row, Lost>> {
  const token = table.fence === table.holder ? options.holder : (options.token ?? newToken());
  const lease: Assignments = [
    [table.holder, options.holder],
    ...(table.fence === table.holder ? [] : [[table.fence, token] as const]),
    [table.until, options.until],
  ];
  return store.transaction(
    async (): Promise<ClaimKeyResult<Row, Lost>> => {
      const refused = await options.refuse?.();
      if (refused !== undefined) return { won: false, refused };
      const read = () => store.get<Row>(`SELECT * FROM ${table.name} WHERE ${keyed(table)}`, options.key);
      const row = await read();
      if (!row) {
        const values: Assignments = [
          ...table.key.map((column, index) => [column, options.key[index]] as const),
          ...lease,
          ...(options.insert ?? []),
        ];
        const { changes } = await store.run(
          `INSERT INTO ${table.name} (${values.map(([column]) => column).join(', ')})
           VALUES (${values.map(() => '?').join(', ')}) ON CONFLICT (${table.key.join(', ')}) DO NOTHING`,
          values.map(([, value]) => value),
        );
        return changes === 1 ? { won: true, takeover: false } : { won: false, row: (await read())! };
      }
      if (!options.free(row)) return { won: false, row };
      const values = assignments([...lease, ...(options.takeover ?? [])]);
      const { changes } = await store.run(
        `UPDATE ${table.name} SET ${values.sql}
         WHERE ${keyed(table)} AND ${table.holder} = ? AND ${table.until} = ?${table.held ? ` AND ${table.held}` : ''}`,
        [...values.params, ...options.key, row[table.holder], row[table.until]],
      );
      if (changes !== 1) return { won: false, row };
      return { won: true, takeover: row[table.holder] !== options.holder };
    },
    { lock: options.lock },
  );
}

/**
 * Ends at once the leases held by holders `isGone` says no longer exist (a process of this host that
 * was killed), so their rows need not wait out the lease. Conditional on the holder read: a row
 * claimed again meanwhile is left alone.
 */
export async function expireGoneHolders(
  store: LeaseStore,
  table: LeaseTable,
  now: number,
  isGone: (holder: string) => boolean,
): Promise<number> {
  const held = table.held ? `${table.held} AND ` : '';
  const rows = await store.all<Record<string, unknown>>(
    `SELECT ${[...table.key, table.holder].join(', ')} FROM ${table.name}
     WHERE ${held}${table.until} >= ? AND ${table.holder} IS NOT NULL`,
    [now],
  );
  let expired = 0;
  for (const row of rows) {
    if (!isGone(String(row[table.holder]))) continue;
    const { changes } = await store.run(
      `UPDATE ${table.name} SET ${table.until} = ? WHERE ${keyed(table)} AND ${held}${table.holder} = ?`,
      [now - 1, ...table.key.map((column) => row[column]), row[table.holder]],
    );
    expired += changes;
  }
  return expired;
}
