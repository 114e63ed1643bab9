import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE } from '../../src/sandbox/dataset.js';
import { MAPPING_VERSION } from '../../src/store/metric-values.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { copySnapshots } from '../helpers/synth-snapshots.js';
import { type SyncEnv, startSyncEnv } from '../sync/helpers/sync-env.js';

/**
 * `reportd export --format duckdb` and `--incremental` loads into a DuckDB file and into load folders,
 * as a user runs them (the built CLI, a store synced from the hostile sandbox over HTTP), read back by
 * DuckDB itself.
 */

const TABLES: Record<string, string> = {
  metric_values: 'SELECT COUNT(*) FROM metric_values',
  runs: 'SELECT COUNT(*) FROM metric_derivations',
  error_register: 'SELECT COUNT(*) FROM metric_error_register',
  sources: 'SELECT COUNT(*) FROM metric_sources',
  summaries: 'SELECT COUNT(*) FROM metric_summaries',
};

let env: SyncEnv;
let config: string;
let out: string;
beforeAll(async () => {
  env = await startSyncEnv({
    rate: { requests: 2000, windowMs: 1000 },
    sandbox: { hostile: true },
    settings: { query_sets: [101, 102], backfill_runs: 3 },
    concurrency: 8,
  });
  await env.sync();
  config = env.writeConfig();
  out = mkdtempSync(join(tmpdir(), 'reportd-duckdb-'));
}, 60_000);
afterAll(async () => {
  await env.close();
  rmSync(out, { recursive: true, force: true });
});

async function duck<T = Record<string, unknown>>(file: string, sql: string): Promise<T[]> {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJS() as T[];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function storeCount(sql: string): Promise<number> {
  const row = await env.store.get<Record<string, unknown>>(sql);
  return Number(Object.values(row ?? {})[0]);
}

const COUNTED = [
  'metric_values',
  'runs',
  'error_register',
  'sources',
  'summaries',
  'query_sets',
  'engines',
  'intents',
  '_loads',
] as const;
async function counts(file: string): Promise<Record<(typeof COUNTED)[number], number>> {
  const result = {} as Record<(typeof COUNTED)[number], number>;
  for (const table of COUNTED) {
    const [row] = await duck<{ n: bigint }>(file, `SELECT COUNT(*) AS n FROM ${table}`);
    result[table] = Number(row!.n);
  }
  return result;
}

const exportCli = (...args: string[]) => runCli(['export', '--config', config, ...args]);

/** The three example queries of docs/analysing-data.md (section "SQL"), as a BI user would paste them. */
const page = readFileSync(join(__dirname, '../../docs/analysing-data.md'), 'utf8');
const section = page.slice(page.indexOf('## SQL'));
const queries = [...section.matchAll(/^```sql\n([\s\S]*?)^```/gm)].map((m) => m[1]!).slice(0, 3);

describe('reportd export --format duckdb', () => {
  it('writes one file with every table, typed, row counts equal to the store, and the views', async () => {
    const file = join(out, 'full.duckdb');
    const result = await exportCli('--format', 'duckdb', '--out', file);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^load export-\S+ into new DuckDB file .*: 6 runs, \d+ rows/);
    expect(existsSync(`${file}.wal`)).toBe(false);
    const got = await counts(file);
    for (const [table, sql] of Object.entries(TABLES))
      expect(got[table as keyof typeof got], table).toBe(await storeCount(sql));
    expect(got.query_sets).toBe(2);
    expect(got._loads).toBe(1);
    const types = Object.fromEntries(
      (await duck<{ column_name: string; column_type: string }>(file, 'DESCRIBE metric_values')).map((t) => [
        t.column_name,
        t.column_type,
      ]),
    );
    expect(types).toMatchObject({
      run_created_at: 'TIMESTAMP WITH TIME ZONE',
      value: 'DOUBLE',
      query_set_id: 'BIGINT',
      endpoint: 'VARCHAR',
      _load_id: 'VARCHAR',
    });
    const [sum] = await duck<{ total: number }>(file, 'SELECT SUM(value) AS total FROM v_metric_values');
    expect(sum!.total).toBeCloseTo(await storeCount('SELECT SUM(value) FROM metric_values'), 6);
    // Hostile API text is data: the spreadsheet formula and the markup come back byte for byte.
    const names = await duck<{ n: bigint }>(
      file,
      `SELECT COUNT(*) AS n FROM metric_values WHERE dimension_label = '${HOSTILE.competitorName.replaceAll("'", "''")}'`,
    );
    expect(Number(names[0]!.n)).toBeGreaterThan(0);
    const notes = await duck<{ note: string }>(
      file,
      "SELECT DISTINCT note FROM v_error_register WHERE note LIKE '%script%'",
    );
    expect(notes.map((n) => n.note)).toContain(HOSTILE.errorNote);
  });

  it("runs the README's queries: the first two unchanged, the third in its DuckDB variant", async () => {
    const file = join(out, 'full.duckdb');
    expect(queries).toHaveLength(3);
    const presence = await duck<{ engine: string }>(file, queries[0]!);
    expect(new Set(presence.map((r) => r.engine))).toEqual(
      new Set(['ChatGPT', 'Gemini', 'Perplexity', 'Claude', 'Copilot']),
    );
    const share = await duck<{ side: string; share_pct: number }>(file, queries[1]!);
    expect(share.filter((r) => r.side === 'brand')).toHaveLength(3);
    // DuckDB wants every selected column grouped: the variant groups by run and time as well.
    const variant = queries[2]!.replace(
      'GROUP BY e.account, e.run_id',
      'GROUP BY e.account, e.run_id, e.run, e.run_created_at',
    );
    const fresh = await duck<{ run: string; new_errors: bigint; error_ids: string }>(file, variant);
    expect(fresh.length).toBeGreaterThan(0);
    const store = env.store;
    const first = await store.get<{ n: number }>(
      `SELECT COUNT(DISTINCT error_id) AS n FROM v_error_register WHERE query_set_id = 101 AND run = ?`,
      [fresh[0]!.run],
    );
    expect(Number(fresh[0]!.new_errors)).toBe(Number(first!.n));
  });
});

describe('reportd export --incremental into DuckDB and load folders', () => {
  it('loads everything once, nothing the second time, and exactly a new run after it is synced', async () => {
    const file = join(out, 'warehouse.duckdb');
    const first = await exportCli('--format', 'duckdb', '--out', file, '--incremental', 'weekly');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^load weekly-\S+ into DuckDB file .*: 6 runs/);
    const afterFirst = await counts(file);
    expect(afterFirst.metric_values).toBe(await storeCount('SELECT COUNT(*) FROM metric_values'));

    const second = await exportCli('--format', 'duckdb', '--out', file, '--incremental', 'weekly');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/nothing new to load .*\(0 rows written\)/);
    expect(await counts(file)).toEqual(afterFirst);

    const published = env.sandbox.publishRun(101);
    await env.sync();
    const snapshot = await env.store.get<{ id: number; rows: number }>(
      `SELECT s.id, d.rows FROM snapshots s JOIN metric_derivations d ON d.snapshot_id = s.id
       WHERE s.query_set_id = 101 AND s.run_id = ?`,
      [published.id],
    );
    expect(snapshot).toBeDefined();
    const third = await exportCli('--format', 'duckdb', '--out', file, '--incremental', 'weekly');
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toMatch(/: 1 run, /);
    const afterThird = await counts(file);
    const ofSnapshot = async (table: string) =>
      storeCount(`SELECT COUNT(*) FROM ${table} WHERE snapshot_id = ${snapshot!.id}`);
    expect(afterThird.metric_values - afterFirst.metric_values).toBe(Number(snapshot!.rows));
    expect(afterThird.error_register - afterFirst.error_register).toBe(
      await ofSnapshot('metric_error_register'),
    );
    expect(afterThird.sources - afterFirst.sources).toBe(await ofSnapshot('metric_sources'));
    expect(afterThird.runs - afterFirst.runs).toBe(1);
    expect(afterThird.query_sets).toBe(afterFirst.query_sets);
    const loads = await duck<{ load_id: string; runs: bigint; runs_covered: string; rows_per_table: string }>(
      file,
      'SELECT load_id, runs, runs_covered, rows_per_table FROM _loads ORDER BY finished_at',
    );
    expect(loads).toHaveLength(2);
    expect(JSON.parse(loads[1]!.runs_covered)).toEqual([
      { account: 'acme', query_set_id: 101, run_id: published.id },
    ]);
    expect(JSON.parse(loads[1]!.rows_per_table).metric_values).toBe(Number(snapshot!.rows));
    const stamped = await duck<{ n: bigint }>(
      file,
      `SELECT COUNT(*) AS n FROM metric_values WHERE _load_id = '${loads[1]!.load_id}'`,
    );
    expect(Number(stamped[0]!.n)).toBe(Number(snapshot!.rows));

    // The target's last load was made by a reportd whose metric mapping was older: the load that
    // brings rows of the current mapping says so in its note, in the output and in `_loads`.
    const writable = await DuckDBInstance.create(file);
    const connection = await writable.connect();
    try {
      await connection.run(`UPDATE _loads SET mapping_version = ${MAPPING_VERSION - 1}`);
    } finally {
      connection.closeSync();
      writable.closeSync();
    }
    env.sandbox.publishRun(101);
    await env.sync();
    const fourth = await exportCli('--format', 'duckdb', '--out', file, '--incremental', 'weekly');
    expect(fourth.code, fourth.stderr).toBe(0);
    const note = `metric mapping changed from version ${MAPPING_VERSION - 1} to ${MAPPING_VERSION}`;
    expect(fourth.stdout).toContain(`note: ${note}`);
    const notes = await duck<{ note: string | null }>(file, 'SELECT note FROM _loads ORDER BY finished_at');
    expect(notes.map((row) => row.note?.slice(0, note.length) ?? null)).toEqual([null, null, note]);
  });

  it('writes a load folder per load for csv, and none when nothing is new', async () => {
    const dir = join(out, 'folders');
    const first = await exportCli('--format', 'csv', '--out', dir, '--incremental', 'nightly');
    expect(first.code, first.stderr).toBe(0);
    const second = await exportCli('--format', 'csv', '--out', dir, '--incremental', 'nightly');
    expect(second.stdout).toMatch(/nothing new/);
    const folders = readdirSync(dir).filter((name) => !name.startsWith('_'));
    expect(folders).toHaveLength(1);
    const values = readFileSync(join(dir, folders[0]!, 'metric_values.csv'), 'utf8').split('\r\n');
    expect(values[0]).toMatch(/,unit,_load_id$/);
    expect(values.filter((line) => line.endsWith(`,${folders[0]}`)).length).toBe(
      await storeCount('SELECT COUNT(*) FROM metric_values'),
    );
    expect(readFileSync(join(dir, '_loads.csv'), 'utf8')).toContain(folders[0]);
  });

  it('leaves the file as it was when the loading process is killed with SIGKILL midway', async () => {
    const file = join(out, 'killed.duckdb');
    const first = await exportCli('--format', 'duckdb', '--out', file, '--incremental', 'weekly');
    expect(first.code, first.stderr).toBe(0);
    const before = await counts(file);
    // Enough new runs that the load writes for a while: DuckDB spills a large transaction's rows
    // into the file before it commits, which is the moment to kill it.
    const template = await env.store.get<{ id: number }>(
      `SELECT s.id FROM snapshots s JOIN metric_derivations d ON d.snapshot_id = s.id WHERE s.query_set_id = 102 LIMIT 1`,
    );
    await copySnapshots(env.store, template!.id, 120);
    const { backfillMetricRows } = await import('../../src/store/metric-values.js');
    await backfillMetricRows(env.store);
    // Progress logged at info: the first chunk of metric_values is in the open transaction.
    const verbose = join(out, 'verbose.yaml');
    writeFileSync(verbose, readFileSync(config, 'utf8').replace('level: warn', 'level: info'));
    const child = spawnCli([
      'export',
      '--config',
      verbose,
      '--format',
      'duckdb',
      '--out',
      file,
      '--incremental',
      'weekly',
    ]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise((resolve) => child.on('close', resolve));
    const deadline = Date.now() + 60_000;
    while (!stderr.includes('load progress') && child.exitCode === null && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 2));
    child.kill('SIGKILL');
    await exited;
    expect(stdout, 'the load finished before it could be killed').toBe('');
    expect(child.signalCode).toBe('SIGKILL');
    expect(await counts(file)).toEqual(before);
    // And the next load brings the runs the killed one did not.
    const again = await exportCli('--format', 'duckdb', '--out', file, '--incremental', 'weekly');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/: 12\d runs/);
  }, 120_000);
});
