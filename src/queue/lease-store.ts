/**
 * What the leased rows (leased-rows.ts) need of a database: statements, one write transaction with
 * an optional named lock, and which engine answers (for dialect/). The store's seam (store/sql.ts
 * `Store`) has exactly this shape, so repositories pass their store as it is; the queue names only
 * what it uses, so it needs nothing of store/ and store/ nothing of it.
 */
export interface LeaseStore {
  readonly engine: 'sqlite' | 'postgres';
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  get<T>(sql: string, params?: readonly unknown[]): Promise<T | undefined>;
  run(sql: string, params?: readonly unknown[]): Promise<{ changes: number }>;
  /** One write transaction; `lock` names a lock held until it ends (PostgreSQL; SQLite's writer excludes). */
  transaction<T>(fn: () => Promise<T>, options?: { lock?: string }): Promise<T>;
}
