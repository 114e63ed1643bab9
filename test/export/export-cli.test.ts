import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE } from '../../src/sandbox/dataset.js';
import { runCli } from '../helpers/cli.js';
import { type SyncEnv, startSyncEnv } from '../sync/helpers/sync-env.js';

/**
 * `reportd export` as a user runs it (the built CLI, a real store synced from the sandbox over HTTP),
 * with the files read back by readers reportd does not write with: Python's `csv` module, DuckDB for
 * Parquet, and the workbook's own XML.
 */

let env: SyncEnv;
let config: string;
let out: string;
beforeAll(async () => {
  env = await startSyncEnv({
    rate: { requests: 2000, windowMs: 1000 },
    settings: { query_sets: [101, 102], backfill_runs: 3 },
    concurrency: 8,
  });
  await env.sync();
  config = env.writeConfig();
  out = mkdtempSync(join(tmpdir(), 'reportd-export-'));
}, 60_000);
afterAll(async () => {
  await env.close();
  rmSync(out, { recursive: true, force: true });
});

const TABLES = [
  'metric_values',
  'metric_changes',
  'runs',
  'query_sets',
  'engines',
  'intents',
  'error_register',
  'sources',
  'summaries',
];

/** Python's csv module as the independent reader: header + rows as JSON. */
function readCsv(file: string): { header: string[]; rows: string[][] } {
  const script =
    'import csv, json, sys\n' +
    "rows = list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))\n" +
    "print(json.dumps({'header': rows[0], 'rows': rows[1:]}))";
  return JSON.parse(execFileSync('python3', ['-c', script, file], { maxBuffer: 1 << 28 }).toString());
}

async function duck<T>(sql: string): Promise<T[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(sql);
    return reader.getRowObjectsJS() as T[];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The first column of the first row the statement returns, as a number (a count or a sum). */
async function storeCount(sql: string, ...params: unknown[]): Promise<number> {
  const row = await env.store.get<Record<string, unknown>>(sql, params);
  return Number(Object.values(row ?? {})[0]);
}

describe('reportd export', () => {
  it('writes CSV files that Python reads back with the store rows and values', async () => {
    const dir = join(out, 'csv');
    const result = await runCli(['export', '--config', config, '--format', 'csv', '--out', dir]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual(TABLES.map((t) => join(dir, `${t}.csv`)));
    const { header, rows } = readCsv(join(dir, 'metric_values.csv'));
    expect(header).toEqual([
      'account',
      'brand_id',
      'brand',
      'query_set_id',
      'query_set',
      'run_id',
      'run',
      'run_created_at',
      'endpoint',
      'field',
      'dimension',
      'dimension_id',
      'dimension_label',
      'value',
      'unit',
    ]);
    expect(rows.length).toBe(await storeCount('SELECT COUNT(*) FROM metric_values'));
    // RFC 4180 line ends.
    expect(readFileSync(join(dir, 'metric_values.csv'), 'utf8').slice(0, 300)).toContain('unit\r\n');
    const gross = rows.filter((r) => r[8] === 'presence.gross' && r[9] === 'current');
    expect(gross).toHaveLength(6);
    for (const row of gross) {
      const json = await storeCount(
        `SELECT json_extract(p.json, '$.current') FROM payloads p JOIN snapshots s ON s.id = p.snapshot_id
         WHERE s.query_set_id = ? AND s.run_id = ? AND p.endpoint_key = 'presence.gross'`,
        Number(row[3]),
        Number(row[5]),
      );
      expect(Number(row[13])).toBe(json);
      expect(row[14]).toBe('percent');
      expect(row[7]).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    }
    const claims = readCsv(join(dir, 'error_register.csv'));
    expect(claims.rows.length).toBe(await storeCount('SELECT COUNT(*) FROM metric_error_register'));
    expect(readCsv(join(dir, 'runs.csv')).rows).toHaveLength(6);

    // Every change carries its verdict, interval, p, q, family size and n beside a readable name; no
    // change of a change.
    const changes = readCsv(join(dir, 'metric_changes.csv'));
    const at = (name: string) => changes.header.indexOf(name);
    expect(changes.rows.length).toBeGreaterThan(100);
    const verdicts = new Set(changes.rows.map((r) => r[at('significance')]));
    expect([...verdicts].every((v) => ['likely', 'unclear', 'unknown'].includes(v!))).toBe(true);
    // Each run's changes are judged together: the headline presence figures as one family, the rest as
    // another, each holding half of q = 0.05 — so a change is likely exactly when its q is at most 0.025.
    const sizes = new Map<string, Set<string>>();
    for (const r of changes.rows.filter((row) => row[at('significance')] !== 'unknown')) {
      sizes.set(r[at('run_id')]!, (sizes.get(r[at('run_id')]!) ?? new Set()).add(r[at('family_size')]!));
      expect(Number(r[at('q')])).toBeGreaterThanOrEqual(Number(r[at('p')]));
      expect(Number(r[at('q')]) <= 0.025).toBe(r[at('significance')] === 'likely');
      expect(Number(r[at('interval_level')])).toBeGreaterThanOrEqual(0.95);
    }
    expect([...sizes.values()].every((set) => set.size === 2 && set.has('2'))).toBe(true);
    expect(changes.rows.some((r) => /delta/i.test(r[at('field')]!))).toBe(false);
    const grossChanges = changes.rows.filter((r) => r[at('endpoint')] === 'presence.gross');
    expect(grossChanges.length).toBeGreaterThan(0);
    for (const r of grossChanges) {
      expect(r[at('label')]).toBe('Gross presence');
      expect(Number(r[at('n_after')])).toBeGreaterThan(100);
      expect(Number(r[at('interval_low')])).toBeLessThan(Number(r[at('interval_high')]));
      expect(r[at('n_source')]).toBe('totalAll');
    }
    const life = changes.rows.find((r) => r[at('endpoint')] === 'life.kpi');
    expect(life?.[at('significance')]).toBe('unknown');
    expect([life?.[at('interval_low')], life?.[at('p')], life?.[at('q')], life?.[at('family_size')]]).toEqual(
      ['', '', '', ''],
    );
    const engine = changes.rows.find((r) => r[at('endpoint')] === 'presence.by-engine');
    expect(engine?.[at('label')]).toMatch(/^(Gross|Weighted) presence on \S/);
  }, 60_000);

  it('writes typed Parquet that DuckDB reads with the same rows and values', async () => {
    const dir = join(out, 'parquet');
    const result = await runCli(['export', '--config', config, '--format', 'parquet', '--out', dir]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const file = join(dir, 'metric_values.parquet');
    const types = await duck<{ column_name: string; column_type: string }>(
      `DESCRIBE SELECT * FROM read_parquet('${file}')`,
    );
    const typeOf = Object.fromEntries(types.map((t) => [t.column_name, t.column_type]));
    expect(typeOf).toMatchObject({
      query_set_id: 'INTEGER',
      run_id: 'INTEGER',
      value: 'DOUBLE',
      endpoint: 'VARCHAR',
      dimension_label: 'VARCHAR',
    });
    expect(typeOf.run_created_at).toMatch(/^TIMESTAMP/);
    const [totals] = await duck<{ n: bigint | number; total: number }>(
      `SELECT COUNT(*) AS n, SUM(value) AS total FROM read_parquet('${file}')`,
    );
    expect(Number(totals!.n)).toBe(await storeCount('SELECT COUNT(*) FROM metric_values'));
    expect(totals!.total).toBeCloseTo(await storeCount('SELECT SUM(value) FROM metric_values'), 6);
    const weighted = await duck<{ run_id: bigint; value: number }>(
      `SELECT run_id, value FROM read_parquet('${file}')
       WHERE query_set_id = 101 AND endpoint = 'presence.weighted' AND field = 'current' ORDER BY run_id`,
    );
    const stored = await env.store.all<{ run_id: number; value: number }>(
      `SELECT run_id, value FROM metric_values WHERE query_set_id = 101 AND endpoint = 'presence.weighted'
       AND field = 'current' ORDER BY run_id`,
    );
    expect(weighted.map((w) => ({ run_id: Number(w.run_id), value: w.value }))).toEqual(stored);
    for (const table of TABLES) expect(existsSync(join(dir, `${table}.parquet`))).toBe(true);
  }, 60_000);

  it('narrows to sets and the newest runs, and writes one workbook with an Excel table per table', async () => {
    const dir = join(out, 'xlsx');
    const result = await runCli([
      'export',
      '--config',
      config,
      '--format',
      'xlsx',
      '--out',
      dir,
      '--set',
      '102',
      '--runs',
      '2',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const file = join(dir, 'metric_values.xlsx');
    expect(result.stdout.trim()).toBe(file);
    const listing = execFileSync('unzip', ['-Z1', file]).toString().split('\n');
    expect(listing.filter((name) => /^xl\/tables\/.+\.xml$/.test(name))).toHaveLength(TABLES.length);
    const sheet1 = execFileSync('unzip', ['-p', file, 'xl/worksheets/sheet1.xml'], {
      maxBuffer: 1 << 28,
    }).toString();
    // Rows of set 102 only, two runs: count the data rows of the metric_values sheet.
    const expected = await storeCount(
      `SELECT COUNT(*) FROM metric_values WHERE query_set_id = 102 AND run_id IN
         (SELECT run_id FROM metric_values WHERE query_set_id = 102 GROUP BY run_id ORDER BY run_id DESC LIMIT 2)`,
    );
    expect((sheet1.match(/<row /g) ?? []).length).toBe(expected + 1);
  }, 60_000);

  it('puts the same rows in the workbook Data sheet as metric_values holds for the set', async () => {
    const dir = join(out, 'render');
    const result = await runCli([
      'render',
      '--config',
      config,
      '--set',
      '101',
      '--format',
      'xlsx',
      '--out',
      dir,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(result.stdout.trim());
    const data = workbook.getWorksheet('Data')!;
    const cells: { run: unknown; endpoint: unknown; value: number }[] = [];
    data.eachRow((row, n) => {
      if (n > 1)
        cells.push({
          run: row.getCell(6).value,
          endpoint: row.getCell(9).value,
          value: row.getCell(14).value as number,
        });
    });
    expect(cells.length).toBe(
      await storeCount('SELECT COUNT(*) FROM metric_values WHERE query_set_id = 101'),
    );
    const sum = cells.reduce((total, cell) => total + cell.value, 0);
    expect(sum).toBeCloseTo(
      await storeCount('SELECT SUM(value) FROM metric_values WHERE query_set_id = 101'),
      6,
    );
  }, 60_000);

  it('refuses an unknown set naming it, and says when the store has nothing to export', async () => {
    const unknown = await runCli([
      'export',
      '--config',
      config,
      '--format',
      'csv',
      '--out',
      out,
      '--set',
      '101,999',
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toContain('query set 999 is not in store');
    const badFormat = await runCli(['export', '--config', config, '--format', 'json', '--out', out]);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toContain('--format takes one of csv, parquet, xlsx, duckdb, got "json"');

    const empty = join(out, 'empty');
    const emptyConfig = join(out, 'empty.yaml');
    writeFileSync(
      emptyConfig,
      readFileSync(config, 'utf8').replace(
        /store: \{ path: .* \}/,
        `store: { path: ${join(empty, 'e.sqlite')} }`,
      ),
    );
    // A store that exists but holds no snapshot yet.
    const { openStore } = await import('../../src/store/db.js');
    await (await openStore(join(empty, 'e.sqlite'))).close();
    const nothing = await runCli(['export', '--config', emptyConfig, '--format', 'csv', '--out', out]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/has no complete snapshot to export \(run `reportd sync` first\)/);
  }, 60_000);
});

describe('reportd export with hostile API strings', () => {
  let hostile: SyncEnv;
  beforeAll(async () => {
    hostile = await startSyncEnv({
      rate: { requests: 2000, windowMs: 1000 },
      settings: { query_sets: [101], backfill_runs: 1 },
      sandbox: { hostile: true },
      concurrency: 8,
    });
    await hostile.sync();
  }, 60_000);
  afterAll(() => hostile.close());

  it('neutralises formula-like CSV cells and writes no formula cell in the workbook', async () => {
    const cfg = hostile.writeConfig();
    const dir = join(out, 'hostile');
    for (const format of ['csv', 'xlsx']) {
      const result = await runCli(['export', '--config', cfg, '--format', format, '--out', dir]);
      expect(result.code, result.stderr).toBe(0);
    }
    const csv = readCsv(join(dir, 'metric_values.csv'));
    const labels = csv.rows.map((row) => row[12]!);
    expect(labels).toContain(`'${HOSTILE.competitorName}`);
    const numeric = new Set([1, 3, 5, 13]);
    for (const table of ['metric_values', 'summaries', 'error_register', 'sources']) {
      for (const row of readCsv(join(dir, `${table}.csv`)).rows) {
        row.forEach((cell, i) => {
          if (table === 'metric_values' && numeric.has(i)) return;
          expect(cell, `${table}: ${cell}`).not.toMatch(/^[=+\-@\t\r]/);
        });
      }
    }
    const file = join(dir, 'metric_values.xlsx');
    const sheets = execFileSync('unzip', ['-Z1', file])
      .toString()
      .split('\n')
      .filter((name) => name.startsWith('xl/worksheets/sheet'));
    expect(sheets.length).toBe(TABLES.length);
    let sawHostile = false;
    for (const sheet of sheets) {
      const xml = execFileSync('unzip', ['-p', file, sheet], { maxBuffer: 1 << 28 }).toString();
      expect(xml, sheet).not.toMatch(/<f[ >]/);
      if (xml.includes('HYPERLINK')) sawHostile = true;
    }
    const shared = execFileSync('unzip', ['-p', file, 'xl/sharedStrings.xml'], {
      maxBuffer: 1 << 28,
    }).toString();
    expect(sawHostile || shared.includes('=HYPERLINK(')).toBe(true);
  }, 60_000);
});
