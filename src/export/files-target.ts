import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeAtomically } from '../write-atomically.js';
import { toCsv } from './csv.js';
import { LOADS_COLUMNS, type LoadRecord, type LoadTarget, loadRow, runKey } from './load-target.js';
import type { ExportTable } from './tables.js';

/**
 * A folder of load folders as a load target (`--format csv|parquet --incremental NAME --out DIR`):
 * each load is `DIR/<load id>/` with one file per table (every row stamped with the load id) and a
 * `_load.json` manifest. The folder is written under a hidden name and renamed whole, so a load killed
 * midway leaves no load folder; `DIR/_loads.<format>` lists the loads, rebuilt from the manifests.
 */

interface Manifest extends Omit<LoadRecord, 'started_at' | 'finished_at'> {
  started_at: string;
  finished_at: string;
  /** Keys written to the tables keyed by something other than a run (query_sets, engines, intents). */
  keys: Record<string, string[]>;
}

const MANIFEST = '_load.json';

function manifests(dir: string): Manifest[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && existsSync(join(dir, e.name, MANIFEST)))
    .map((e) => JSON.parse(readFileSync(join(dir, e.name, MANIFEST), 'utf8')) as Manifest)
    .sort((a, b) => a.finished_at.localeCompare(b.finished_at));
}

export function filesTarget(outDir: string, format: 'csv' | 'parquet'): LoadTarget {
  const dir = resolve(outDir);
  let partial: string | undefined;
  let manifest: Manifest | undefined;
  const keyColumns = new Map<string, readonly string[]>();
  const keysWritten: Record<string, string[]> = {};
  const tables = new Map<string, ExportTable>();
  const encode = async (table: ExportTable) =>
    format === 'csv' ? toCsv(table) : (await import('./parquet.js')).toParquet(table);
  return {
    description: `load folders in ${dir}`,
    async begin() {
      mkdirSync(dir, { recursive: true });
      // Left by a load killed midway: never renamed, never read.
      for (const e of readdirSync(dir))
        if (e.startsWith('.partial-')) rmSync(join(dir, e), { recursive: true, force: true });
    },
    async loadedRuns() {
      return new Set(
        manifests(dir).flatMap((m) => m.runs_covered.map((r) => runKey(r.account, r.query_set_id, r.run_id))),
      );
    },
    async loadedKeys(table, columns) {
      keyColumns.set(table, columns);
      return new Set(manifests(dir).flatMap((m) => m.keys[table] ?? []));
    },
    async lastMappingVersion() {
      return manifests(dir).at(-1)?.mapping_version ?? null;
    },
    async insert(table) {
      // Chunks of one table gather here; each table is one file, written at recordLoad.
      const held = tables.get(table.name);
      tables.set(table.name, held ? { ...held, rows: [...held.rows, ...table.rows] } : table);
      const columns = keyColumns.get(table.name);
      if (columns) {
        const at = columns.map((c) => table.columns.findIndex((col) => col.name === c));
        keysWritten[table.name] = [
          ...(keysWritten[table.name] ?? []),
          ...table.rows.map((row) => at.map((i) => String(row[i])).join('\u0000')),
        ];
      }
    },
    async recordLoad(record) {
      partial = join(dir, `.partial-${process.pid}-${Date.now()}`);
      mkdirSync(partial, { recursive: true });
      for (const table of tables.values())
        writeFileSync(join(partial, `${table.name}.${format}`), await encode(table));
      manifest = {
        ...record,
        started_at: record.started_at.toISOString(),
        finished_at: record.finished_at.toISOString(),
        keys: keysWritten,
      };
      writeFileSync(join(partial, MANIFEST), JSON.stringify(manifest, null, 2));
    },
    async commit() {
      renameSync(partial!, join(dir, manifest!.load_id));
      partial = undefined;
      const rows = manifests(dir).map((m) =>
        loadRow({ ...m, started_at: new Date(m.started_at), finished_at: new Date(m.finished_at) }).map(
          (v) => (v instanceof Date ? v.toISOString() : v),
        ),
      );
      const columns = LOADS_COLUMNS.map((name) => ({
        name,
        type: name === 'runs' || name === 'mapping_version' ? ('integer' as const) : ('string' as const),
      }));
      writeAtomically(join(dir, `_loads.${format}`), await encode({ name: '_loads', columns, rows }));
    },
    async close() {
      if (partial) rmSync(partial, { recursive: true, force: true });
      partial = undefined;
    },
  };
}
