import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { renderDigestWorkbook } from '../../src/report/digest/workbook.js';
import { renderWorkbook } from '../../src/report/xlsx.js';
import { fixtureSnapshot } from './fixtures.js';

/**
 * The digest's one workbook, read back with exceljs as an analyst's tool would open it: every set's
 * sheets under a short prefix, a Sets sheet saying which prefix is which set, one Data table for all,
 * and the report's choice of sections (or the brief's) applied to the group sheets.
 */
const meta = { generatedAt: new Date('2026-11-23T08:00:00Z'), version: 'test' };
// An API name made to break a sheet name (forbidden characters, length) and to pass for a formula.
const HOSTILE_SET = '=HYPERLINK("http://x")[S1]:*?/\\ a query set name far longer than 31 characters';
const sets = [
  { snapshot: fixtureSnapshot({ querySetId: 101, querySet: 'Core journeys', runId: 7001 }), history: [] },
  {
    snapshot: fixtureSnapshot({ querySetId: 102, querySet: HOSTILE_SET, brand: 'Lumen', runId: 7002 }),
    history: [],
    repeated: true,
  },
  { snapshot: fixtureSnapshot({ querySetId: 201, querySet: 'Everyday tea', runId: 7003 }), history: [] },
];

async function open(buffer: Buffer): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(buffer as unknown as ExcelJS.Buffer);
  return workbook;
}

/** The rows of the sheet's one Excel table (header row first), as the cell values. */
function tableRows(ws: ExcelJS.Worksheet): unknown[][] {
  const tables = ws.getTables() as unknown as { table: { tableRef: string } }[];
  expect(tables).toHaveLength(1);
  const [from, to] = tables[0]!.table.tableRef.split(':') as [string, string];
  const first = ws.getCell(from);
  const last = ws.getCell(to);
  const rows: unknown[][] = [];
  for (let r = Number(first.row); r <= Number(last.row); r++) {
    const row: unknown[] = [];
    for (let c = Number(first.col); c <= Number(last.col); c++) row.push(ws.getCell(r, c).value);
    rows.push(row);
  }
  return rows;
}

describe('digest workbook', () => {
  it('one book: a Sets sheet, each set under its prefix, one Data table across the sets', async () => {
    const book = await open(await renderDigestWorkbook('portfolio', sets, meta));
    const names = book.worksheets.map((ws) => ws.name);
    const perSet = ['Overview', 'Presence', 'Life', 'Gravity', 'Scout', 'Market', 'About', 'Run history'];
    expect(names).toEqual([
      'Sets',
      ...['S1', 'S2', 'S3'].flatMap((label) => perSet.map((sheet) => `${label} ${sheet}`)),
      'Data',
    ]);
    for (const name of names) expect(name.length).toBeLessThanOrEqual(31);

    const index = tableRows(book.getWorksheet('Sets')!);
    expect(index[0]).toEqual([
      'Sheet prefix',
      'Brand',
      'Query set',
      'Query set id',
      'Run label',
      'Run id',
      'Account',
      'Note',
    ]);
    expect(index.slice(1).map((row) => [row[0], row[2], row[3], row[7] ?? null])).toEqual([
      ['S1', 'Core journeys', 101, null],
      ['S2', HOSTILE_SET, 102, 'No new run since W46 2026.'],
      ['S3', 'Everyday tea', 201, null],
    ]);
    // The hostile name stays text in its cell: no formula anywhere in the book.
    const formulas: string[] = [];
    for (const ws of book.worksheets) {
      ws.eachRow((row) => {
        row.eachCell((cell) => {
          if (cell.type === ExcelJS.ValueType.Formula) formulas.push(`${ws.name}!${cell.address}`);
        });
      });
    }
    expect(formulas).toEqual([]);

    // Every set's banner names it in full; the prefix is only the tab's.
    expect(String(book.getWorksheet('S3 Overview')!.getCell('A1').value)).toContain('Everyday tea');

    const data = tableRows(book.getWorksheet('Data')!);
    const setColumn = (data[0] as string[]).indexOf('query_set_id');
    expect(setColumn).toBeGreaterThanOrEqual(0);
    expect(new Set(data.slice(1).map((row) => row[setColumn]))).toEqual(new Set([101, 102, 201]));
    // The same rows as the three sets' own workbooks, no more, no fewer.
    let single = 0;
    for (const { snapshot } of sets) {
      const own = await open(await renderWorkbook(snapshot, [], { ...meta, account: snapshot.account }));
      single += tableRows(own.getWorksheet('Data')!).length - 1;
    }
    expect(data.length - 1).toBe(single);
  });

  it('follows the report: only the chosen sections, and the brief only the overview', async () => {
    const chosen = await open(
      await renderDigestWorkbook('portfolio', sets.slice(0, 2), meta, { sections: ['market', 'presence'] }),
    );
    expect(chosen.worksheets.map((ws) => ws.name)).toEqual([
      'Sets',
      'S1 Presence',
      'S1 Market',
      'S1 About',
      'S1 Run history',
      'S2 Presence',
      'S2 Market',
      'S2 About',
      'S2 Run history',
      'Data',
    ]);
    const brief = await open(await renderDigestWorkbook('portfolio', sets, meta, { detail: 'summary' }));
    expect(brief.worksheets.map((ws) => ws.name).filter((name) => !/About|Run history/.test(name))).toEqual([
      'Sets',
      'S1 Overview',
      'S2 Overview',
      'S3 Overview',
      'Data',
    ]);
    // A single set's workbook follows the same choice.
    const one = await open(
      await renderWorkbook(sets[0]!.snapshot, [], { ...meta, account: 'main' }, { sections: ['life'] }),
    );
    expect(one.worksheets.map((ws) => ws.name)).toEqual(['Life', 'About', 'Run history', 'Data']);
  });

  it('sheet names in another language stay within 31 characters', async () => {
    const book = await open(
      await renderDigestWorkbook(
        'portfolio',
        Array.from({ length: 12 }, (_, i) => ({
          snapshot: fixtureSnapshot({ querySetId: 300 + i, runId: 8000 + i }),
          history: [],
        })),
        { ...meta, locale: 'fr-FR' },
      ),
    );
    const names = book.worksheets.map((ws) => ws.name);
    expect(names).toContain('S12 Historique des relevés');
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
    for (const name of names) expect(name.length).toBeLessThanOrEqual(31);
  });
});
