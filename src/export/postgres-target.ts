import pg from 'pg';
import { registerSecret } from '../secrets.js';
import {
  createLoadsSql,
  createTableSql,
  LOADS_COLUMNS,
  type LoadTarget,
  loadRow,
  runKey,
  typedCell,
  viewsSql,
} from './load-target.js';
import type { ExportTable } from './tables.js';

/**
 * A schema of the analyst's PostgreSQL as a load target (`reportd export --to postgres://…`). One
 * transaction per load, under a transaction-scoped advisory lock on the schema's name: two loads at
 * once run one after the other, and the second finds the first's runs and adds none of them.
 */

/** PostgreSQL caps a statement at 65,535 parameters. */
const MAX_PARAMS = 60_000;

/** `postgres://host:5432/db`, without user or password: what messages may say. */
export function describePostgresUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return 'postgres://…';
  }
}

export function postgresTarget(url: string, schema: string): LoadTarget {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`schema must be a lower-case PostgreSQL name (letters, digits, _), got "${schema}"`);
  }
  try {
    registerSecret(decodeURIComponent(new URL(url).password));
  } catch {
    // Not a URL: the connection fails below and says so.
  }
  const qualify = qualifier(schema);
  let client: pg.Client | undefined;
  let open = false;
  const db = () => {
    if (!client) throw new Error('postgres target: begin() first');
    return client;
  };
  const rows = async (sql: string) => (await db().query({ text: sql, rowMode: 'array' })).rows as unknown[][];
  return {
    description: `PostgreSQL schema ${schema} at ${describePostgresUrl(url)}`,
    async begin(tables) {
      client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query('BEGIN');
      open = true;
      await prepareSchema(client, schema, tables);
    },
    async loadedRuns() {
      const found = await rows(`SELECT DISTINCT account, query_set_id, run_id FROM ${qualify('runs')}`);
      return new Set(found.map(([a, s, r]) => runKey(a, s, r)));
    },
    async loadedKeys(table, keyColumns) {
      const columns = keyColumns.map((c) => pg.escapeIdentifier(c)).join(', ');
      const found = await rows(`SELECT DISTINCT ${columns} FROM ${qualify(table)}`);
      return new Set(found.map((row) => row.map((v) => String(v)).join('\u0000')));
    },
    async lastMappingVersion() {
      const found = await rows(
        `SELECT mapping_version FROM ${qualify('_loads')} ORDER BY finished_at DESC LIMIT 1`,
      );
      return found.length === 0 ? null : Number(found[0]![0]);
    },
    async insert(table) {
      await insertBatched(db, qualify(table.name), table);
    },
    async recordLoad(record) {
      const values = loadRow(record);
      await db().query(
        `INSERT INTO ${qualify('_loads')} (${LOADS_COLUMNS.join(', ')}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})`,
        values,
      );
    },
    async commit() {
      await db().query('COMMIT');
      open = false;
    },
    async close() {
      if (open) await client?.query('ROLLBACK').catch(() => {});
      open = false;
      await client?.end().catch(() => {});
      client = undefined;
    },
  };
}

/** `"schema"."name"`: a table or view of the target's schema, quoted. */
function qualifier(schema: string): (name: string) => string {
  return (n) => `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(n)}`;
}

/**
 * Inside the load's transaction: takes the schema's advisory lock (a second load waits here), then
 * creates the schema, its tables, `_loads` and the views where missing.
 */
async function prepareSchema(
  client: pg.Client,
  schema: string,
  tables: readonly ExportTable[],
): Promise<void> {
  const qualify = qualifier(schema);
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`reportd-load:${schema}`]);
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(schema)}`);
  for (const table of tables) await client.query(createTableSql(table, qualify, 'TEXT'));
  await client.query(createLoadsSql(qualify, 'TEXT'));
  for (const view of viewsSql(qualify)) await client.query(view);
}

/** Appends a table's rows to `target` in as few INSERTs as the parameter cap allows. */
async function insertBatched(db: () => pg.Client, target: string, table: ExportTable): Promise<void> {
  const width = table.columns.length;
  const batch = Math.max(1, Math.floor(MAX_PARAMS / width));
  const columns = table.columns.map((c) => pg.escapeIdentifier(c.name)).join(', ');
  for (let start = 0; start < table.rows.length; start += batch) {
    const chunk = table.rows.slice(start, start + batch);
    const values: unknown[] = [];
    const tuples = chunk.map((row) => {
      const marks = table.columns.map((column, i) => {
        values.push(typedCell(row[i], column.type));
        return `$${values.length}`;
      });
      return `(${marks.join(', ')})`;
    });
    await db().query(`INSERT INTO ${target} (${columns}) VALUES ${tuples.join(', ')}`, values);
  }
}
