import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricEndpoints } from '../../src/api/endpoints.js';
import { ruleFor } from '../../src/api/field-units.js';
import { excelFormat } from '../../src/report/format.js';
import { KPI_SOURCES } from '../../src/report/xlsx/kpis.js';
import {
  DATA_SHEET,
  HISTORY_SHEET,
  renderWorkbook,
  WORKBOOK_SHEETS,
  XLSX_ENDPOINTS,
} from '../../src/report/xlsx.js';
import { HOSTILE } from '../../src/sandbox/dataset.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import type { StoredSnapshot } from '../../src/store/snapshots.js';
import { sandboxRuns, sandboxSnapshot } from './xlsx-snapshot.js';

const meta = { generatedAt: new Date('2026-11-22T03:00:00Z'), version: '9.9.9', account: 'acme' };
const SET = 101;

let sandbox: Sandbox;
let current: StoredSnapshot;
let older: StoredSnapshot[];
let book: ExcelJS.Workbook;
let zip: JSZip;

async function open(buffer: Buffer): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(buffer as unknown as ExcelJS.Buffer);
  return workbook;
}

function cells(ws: ExcelJS.Worksheet): ExcelJS.Cell[] {
  const all: ExcelJS.Cell[] = [];
  ws.eachRow((row) => row.eachCell((cell) => all.push(cell)));
  return all;
}

const texts = (ws: ExcelJS.Worksheet) =>
  cells(ws).flatMap((c) => (typeof c.value === 'string' ? [c.value] : []));
/** The row after the first cell in column A whose text is `label`, as [B, C, ...]. */
function rowOf(ws: ExcelJS.Worksheet, label: string): ExcelJS.Cell[] {
  const found = cells(ws).find((c) => Number(c.col) === 1 && c.value === label);
  if (!found) throw new Error(`no row "${label}" in ${ws.name}`);
  const row = ws.getRow(Number(found.row));
  return [2, 3, 4, 5, 6].map((col) => row.getCell(col));
}

async function sheetXml(archive: JSZip, name: string, workbook: ExcelJS.Workbook): Promise<string> {
  const index = workbook.worksheets.findIndex((ws) => ws.name === name) + 1;
  return (await archive.file(`xl/worksheets/sheet${index}.xml`)?.async('string')) ?? '';
}

beforeAll(async () => {
  sandbox = await startSandbox({ hostile: true });
  current = await sandboxSnapshot(sandbox, SET);
  // Two earlier runs, KPI payloads only: enough for the history and kind to the rate window.
  const runs = await sandboxRuns(sandbox, SET);
  const keys = KPI_SOURCES.map((source) => source.key);
  older = [];
  for (const run of runs.slice(1, 3))
    older.push(await sandboxSnapshot(sandbox, SET, { runId: run.id, keys }));
  const buffer = await renderWorkbook(current, older, meta);
  book = await open(buffer);
  zip = await JSZip.loadAsync(buffer);
});

afterAll(async () => {
  await sandbox?.close();
});

describe('renderWorkbook', () => {
  it('has the group sheets, About and the run history, in reading order', () => {
    expect(book.worksheets.map((ws) => ws.name)).toEqual([
      'Overview',
      'Presence',
      'Life',
      'Gravity',
      'Scout',
      'Market',
      'About',
      HISTORY_SHEET,
      DATA_SHEET,
    ]);
    expect(WORKBOOK_SHEETS).toEqual(book.worksheets.map((ws) => ws.name));
  });

  it('consumes every metric endpoint of the catalog, once', () => {
    expect([...XLSX_ENDPOINTS].sort()).toEqual(metricEndpoints.map((e) => e.key).sort());
    expect(new Set(XLSX_ENDPOINTS).size).toBe(XLSX_ENDPOINTS.length);
  });

  it('shows every payload in its group sheet: each one missing leaves a "data unavailable" row there', async () => {
    expect(book.worksheets.flatMap(texts).filter((t) => /data unavailable/i.test(t))).toEqual([]);
    const empty = await open(await renderWorkbook({ ...current, payloads: {} }, [], meta));
    for (const endpoint of metricEndpoints) {
      const sheet = empty.getWorksheet(endpoint.group[0]!.toUpperCase() + endpoint.group.slice(1))!;
      expect(
        texts(sheet).some((t) => t.startsWith(`Data unavailable — ${endpoint.title}:`)),
        endpoint.key,
      ).toBe(true);
    }
    const status = texts(empty.getWorksheet('About')!).filter((t) => t === 'data unavailable');
    expect(status).toHaveLength(34);
  });

  it('writes numbers as numbers with the format.ts format (percent points vs fractions)', () => {
    const gross = current.payloads['presence.gross']!.data as { current: number; delta: number };
    const [value, change] = rowOf(book.getWorksheet('Presence')!, 'Gross presence');
    expect(value!.type).toBe(ExcelJS.ValueType.Number);
    expect(value!.value).toBe(gross.current);
    expect(value!.numFmt).toBe(excelFormat(ruleFor('presence.gross')));
    expect(value!.numFmt).toBe('0.0"%"'); // 48.1 shows as 48.1%, not 4810%
    expect(change!.value).toBe(gross.delta);
    expect(change!.numFmt).toBe(excelFormat(ruleFor('presence.gross'), 'delta'));

    const shares = (
      current.payloads['overview.competitive-context']!.data as { shares: { name: string; share: number }[] }
    ).shares;
    const [share] = rowOf(book.getWorksheet('Overview')!, shares[0]!.name);
    expect(share!.type).toBe(ExcelJS.ValueType.Number);
    expect(share!.value).toBe(shares[0]!.share);
    expect(share!.numFmt).toBe('0.0%'); // a 0..1 fraction: Excel's own % multiplies by 100
  });

  it('keeps every API string as text: the HYPERLINK competitor is no formula, in the model or the XML', async () => {
    for (const name of ['Overview', 'Scout', 'Market', DATA_SHEET]) {
      const hits = cells(book.getWorksheet(name)!).filter((c) => c.value === HOSTILE.competitorName);
      expect(hits.length, name).toBeGreaterThan(0);
      for (const cell of hits) {
        expect(cell.type).toBe(ExcelJS.ValueType.String);
        expect(cell.numFmt).toBe('@'); // stays text when someone edits the cell
      }
    }
    const sheets = Object.keys(zip.files).filter((path) => /^xl\/worksheets\/sheet\d+\.xml$/.test(path));
    expect(sheets).toHaveLength(WORKBOOK_SHEETS.length);
    for (const path of sheets) expect(await zip.file(path)!.async('string'), path).not.toMatch(/<f[ >]/);
    const shared = await zip.file('xl/sharedStrings.xml')!.async('string');
    expect(shared).toContain('<t>=HYPERLINK(&quot;http://evil.example&quot;,&quot;x&quot;)</t>');
    expect(texts(book.getWorksheet('Gravity')!)).toContain(HOSTILE.errorNote);

    for (const ws of book.worksheets) {
      for (const cell of cells(ws)) {
        if (typeof cell.value === 'string' && /^[=+\-@]/.test(cell.value))
          expect(cell.numFmt, cell.address).toBe('@');
      }
    }
  });

  it('strips characters XML forbids and still opens', async () => {
    const data = structuredClone(current.payloads['overview.competitive-context']!.data) as {
      shares: { name: string }[];
    };
    data.shares[0]!.name = 'Bad\u0001\u000B\u001FName\uFFFE\uD800';
    const snapshot = {
      ...current,
      payloads: { ...current.payloads, 'overview.competitive-context': { data, error: null } },
    };
    const buffer = await renderWorkbook(snapshot, [], meta);
    const shared = await (await JSZip.loadAsync(buffer)).file('xl/sharedStrings.xml')!.async('string');
    expect(
      shared.match(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uD800-\uDFFF]|&#x?[0-9a-f]+;/gi) ?? [],
    ).toEqual([]);
    expect(texts((await open(buffer)).getWorksheet('Overview')!)).toContain('BadName');
  });

  it('freezes the top rows, uses real tables with filter buttons, and sizes columns from content', async () => {
    for (const ws of book.worksheets) {
      expect(ws.views[0], ws.name).toMatchObject({ state: 'frozen', ySplit: 1 });
      expect(ws.getTables().length, ws.name).toBeGreaterThan(0);
      const widths = [1, 2, 3].map((col) => ws.getColumn(col).width ?? 0);
      for (const width of widths) expect(width, ws.name).toBeLessThanOrEqual(80);
    }
    // About and the history start with their table, so the frozen row is the header row.
    expect(book.getWorksheet(HISTORY_SHEET)!.getCell('A1').value).toBe('Metric');
    const tables = Object.keys(zip.files).filter((path) => /^xl\/tables\/.+\.xml$/.test(path));
    expect(tables.length).toBeGreaterThan(25);
    for (const path of tables)
      expect(await zip.file(path)!.async('string')).not.toContain('hiddenButton="1"');
    // Widths follow content: the intent column is wider than the default, a short column is not.
    const presence = book.getWorksheet('Presence')!;
    expect(presence.getColumn(1).width).toBeGreaterThan(25);
  });

  it('puts a colour scale on the engine × intent matrix and data bars on shares', async () => {
    const presence = await sheetXml(zip, 'Presence', book);
    const scale = /<conditionalFormatting sqref="([A-Z]+)(\d+):([A-Z]+)(\d+)"><cfRule type="colorScale"/.exec(
      presence,
    );
    expect(scale).not.toBeNull();
    const matrix = current.payloads['presence.engine-intent-matrix']!.data as {
      engines: { id: number }[];
      intents: { id: number }[];
      engineIntentMatrix: Record<string, Record<string, number>>;
    };
    const topLeft = book.getWorksheet('Presence')!.getCell(`${scale![1]}${scale![2]}`);
    expect(topLeft.value).toBe(matrix.engineIntentMatrix[matrix.engines[0]!.id]![matrix.intents[0]!.id]);
    expect(Number(scale![4]) - Number(scale![2]) + 1).toBe(matrix.intents.length);
    for (const name of ['Overview', 'Market'])
      expect(await sheetXml(zip, name, book)).toContain('type="dataBar"');
  });

  it('shows "data unavailable" for missing, failed and invalid payloads and renders the rest', async () => {
    const payloads = { ...current.payloads };
    delete payloads['presence.by-engine'];
    payloads['life.kpi'] = { data: { current: 'high' }, error: 'current: expected number' };
    payloads['gravity.error-register'] = { data: null, error: 'Query set not found (-132)' };
    const broken = await open(await renderWorkbook({ ...current, payloads }, older, meta));
    expect(texts(broken.getWorksheet('Presence')!)).toContain(
      'Data unavailable — Presence by engine: not in this snapshot',
    );
    expect(texts(broken.getWorksheet('Life')!).some((t) => t.startsWith('Data unavailable — Life:'))).toBe(
      true,
    );
    expect(texts(broken.getWorksheet('Gravity')!)).toContain(
      'Data unavailable — Error register: Query set not found (-132)',
    );
    const [gross] = rowOf(broken.getWorksheet('Presence')!, 'Gross presence');
    expect(gross!.type).toBe(ExcelJS.ValueType.Number);
    const about = broken.getWorksheet('About')!;
    const [unavailable] = rowOf(about, 'Payloads unavailable');
    expect(unavailable!.value).toBe('presence.by-engine, life.kpi, gravity.error-register');
    expect(rowOf(about, 'reportd version')[0]!.value).toBe('9.9.9');
    expect(rowOf(about, 'Account')[0]!.value).toBe('acme');
  });

  it('lists every run in the history sheet, oldest first, one row per KPI and run', () => {
    const ws = book.getWorksheet(HISTORY_SHEET)!;
    const gross = cells(ws).filter((c) => Number(c.col) === 1 && c.value === 'Gross presence');
    const runs = [...older].reverse().concat(current);
    expect(gross).toHaveLength(3);
    gross.forEach((cell, i) => {
      const row = ws.getRow(Number(cell.row));
      const run = runs[i]!;
      expect(row.getCell(2).value).toBe(run.run.id);
      expect(row.getCell(3).value).toBe(run.run.display_name);
      expect(row.getCell(5).type).toBe(ExcelJS.ValueType.Number);
      expect(row.getCell(5).value).toBe(
        (run.payloads['presence.gross']!.data as { current: number }).current,
      );
    });
  });

  it('counts the current run once when the history already holds it', async () => {
    const ws = (await open(await renderWorkbook(current, [current, ...older], meta))).getWorksheet(
      HISTORY_SHEET,
    )!;
    expect(cells(ws).filter((c) => Number(c.col) === 1 && c.value === 'Gross presence')).toHaveLength(3);
  });

  it('has a Data sheet: every number of every run as tidy rows, formatted by unit, in one table', () => {
    const ws = book.getWorksheet(DATA_SHEET)!;
    expect(ws.getTables()).toHaveLength(1);
    expect(ws.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    const header = (ws.getRow(1).values as unknown[]).slice(1);
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
      'label',
    ]);
    const rows: ExcelJS.Row[] = [];
    ws.eachRow((row, n) => {
      if (n > 1) rows.push(row);
    });
    const gross = rows.filter(
      (r) => r.getCell(9).value === 'presence.gross' && r.getCell(10).value === 'current',
    );
    // Oldest run first, each with the payload's own number and the percent-point format.
    const runs = [...older].reverse().concat(current);
    expect(gross.map((r) => r.getCell(6).value)).toEqual(runs.map((s) => s.run.id));
    gross.forEach((row, i) => {
      expect(row.getCell(14).value).toBe(
        (runs[i]!.payloads['presence.gross']!.data as { current: number }).current,
      );
      expect(row.getCell(14).numFmt).toBe(excelFormat(ruleFor('presence.gross')));
      expect(row.getCell(15).value).toBe('percent');
    });
    const share = rows.find(
      (r) => r.getCell(9).value === 'overview.competitive-context' && r.getCell(10).value === 'share',
    );
    expect(share!.getCell(15).value).toBe('fraction');
    expect(share!.getCell(14).numFmt).toBe('0.0%');
    // The current run has all 34 endpoints: hundreds of rows, every endpoint with numbers present.
    const currentRows = rows.filter((r) => r.getCell(6).value === current.run.id);
    expect(currentRows.length).toBeGreaterThan(500);
    expect(new Set(currentRows.map((r) => r.getCell(9).value)).size).toBe(32);
    // A hostile competitor name stays text.
    const hostile = rows.find((r) => r.getCell(13).value === HOSTILE.competitorName);
    expect(hostile?.getCell(13).type).toBe(ExcelJS.ValueType.String);
  });
});
