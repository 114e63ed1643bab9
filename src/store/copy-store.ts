import type { Store } from './sql.js';

/**
 * Every table worth keeping, parents before children (foreign keys hold at each insert). Account
 * leases are left behind: they belong to processes of the old store, which must not run any more;
 * so are `instances` with the report fingerprints each recorded (`report_fingerprints`, per instance)
 * and the slot claims of `job_slots` (the slot each job last ran is `job_state`'s).
 */
const TABLES = [
  'accounts',
  'brands',
  'query_sets',
  'runs',
  'snapshots',
  'payloads',
  'metric_derivations',
  'metric_values',
  'metric_error_register',
  'metric_summaries',
  'metric_sources',
  'metric_dimensions',
  'sync_runs',
  'request_log',
  'job_state',
  'schedule_events',
  'deliveries',
  'delivery_recipients',
  'delivered_files',
  'incidents',
  'alert_cursors',
  'alert_firings',
] as const;

/** Tables whose `id` the engine numbers: the target's sequence must continue after the copied ids. */
const NUMBERED = ['snapshots', 'sync_runs', 'schedule_events', 'deliveries', 'delivered_files', 'incidents'];

/** Rows read per page and written per INSERT (a payloads row can be large; 200 keeps memory flat). */
const PAGE = 200;

export interface CopyProgress {
  table: string;
  rows: number;
}

/** Tables of the target that already hold rows (a copy goes into an empty store only). */
export async function nonEmptyTables(store: Store): Promise<string[]> {
  const found: string[] = [];
  for (const table of ['snapshots', 'deliveries', 'sync_runs'] as const) {
    if (await store.get(`SELECT 1 AS one FROM ${table} LIMIT 1`)) found.push(table);
  }
  return found;
}

/**
 * Copies every row of `source` (a SQLite store) into `target` (migrated, empty) in one transaction of
 * the target: an interrupted copy leaves it empty, and the copy can simply run again. Rows keep their
 * ids (deliveries keep their Message-IDs and states), and insertion order is kept where the schema
 * reads it (`rowid`).
 */
export async function copyStore(
  source: Store,
  target: Store,
  onTable?: (progress: CopyProgress) => void,
): Promise<CopyProgress[]> {
  const copied: CopyProgress[] = [];
  await target.transaction(async () => {
    for (const table of TABLES) {
      const columns = await columnsOf(source, table);
      const list = columns.join(', ');
      let rows = 0;
      let after = 0;
      for (;;) {
        const page = await source.all<Record<string, unknown>>(
          `SELECT rowid AS copy_rowid, ${list} FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ${PAGE}`,
          [after],
        );
        if (page.length === 0) break;
        after = Number(page.at(-1)!.copy_rowid);
        const tuple = `(${columns.map(() => '?').join(', ')})`;
        await target.run(
          `INSERT INTO ${table} (${list}) VALUES ${page.map(() => tuple).join(', ')}`,
          page.flatMap((row) => columns.map((column) => row[column])),
        );
        rows += page.length;
      }
      copied.push({ table, rows });
      onTable?.({ table, rows });
    }
    if (target.engine === 'postgres') {
      for (const table of NUMBERED) {
        await target.get(
          `SELECT setval(pg_get_serial_sequence('${table}', 'id'), COALESCE((SELECT MAX(id) FROM ${table}), 0) + 1, false) AS next`,
        );
      }
    }
  });
  return copied;
}

/** The source's columns of `table` (SQLite's catalog), without any implicit rowid. */
async function columnsOf(store: Store, table: string): Promise<string[]> {
  const rows = await store.all<{ name: string }>('SELECT name FROM pragma_table_info(?) ORDER BY cid', [
    table,
  ]);
  return rows.map((row) => row.name);
}
