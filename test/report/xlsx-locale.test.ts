import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGS } from '../../src/locale/locale.js';
import { excelFormat, ruleFor } from '../../src/report/format.js';
import { renderWorkbook, WORKBOOK_SHEETS } from '../../src/report/xlsx.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import type { StoredSnapshot } from '../../src/store/snapshots.js';
import { sandboxSnapshot } from './xlsx-snapshot.js';

const meta = { generatedAt: new Date('2026-11-22T03:00:00Z'), version: '9.9.9', account: 'acme' };
const en = CATALOGS.en as Readonly<Record<string, string>>;

let sandbox: Sandbox;
let snapshot: StoredSnapshot;
const books = new Map<string, ExcelJS.Workbook>();

async function open(buffer: Buffer): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(buffer as unknown as ExcelJS.Buffer);
  return workbook;
}

function textsOf(book: ExcelJS.Workbook): string[] {
  const out: string[] = [];
  book.eachSheet((ws) => {
    out.push(ws.name);
    ws.eachRow((row) =>
      row.eachCell((cell) => {
        if (typeof cell.value === 'string') out.push(cell.value);
      }),
    );
  });
  return out;
}

beforeAll(async () => {
  sandbox = await startSandbox();
  snapshot = await sandboxSnapshot(sandbox, 101);
  for (const locale of ['en-US', 'de-DE', 'fr-FR', 'es-ES']) {
    books.set(locale, await open(await renderWorkbook(snapshot, [], { ...meta, locale })));
  }
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
});

describe('workbook in the report locale (sandbox over HTTP, read back with exceljs)', () => {
  it('titles its sheets in the language, and keeps them in the same order', () => {
    expect(books.get('en-US')?.worksheets.map((ws) => ws.name)).toEqual([...WORKBOOK_SHEETS]);
    expect(books.get('de-DE')?.worksheets.map((ws) => ws.name)).toEqual([
      'Überblick',
      'Präsenz',
      'Life',
      'Gravity',
      'Scout',
      'Markt',
      'Info',
      'Laufverlauf',
      'Daten',
    ]);
  });

  it('translates headers and notes: no English catalog text in a German, French or Spanish cell', () => {
    const english = new Set(textsOf(books.get('en-US') as ExcelJS.Workbook));
    // Cells that are whole catalog messages in English (headers, titles, metric names, notes).
    const catalogTexts = new Set(Object.values(en).filter((text) => english.has(text)));
    expect(catalogTexts.size).toBeGreaterThan(60);
    for (const locale of ['de-DE', 'fr-FR', 'es-ES']) {
      const translation = CATALOGS[locale.slice(0, 2)] as Readonly<Record<string, string>>;
      // Messages the translation keeps as in English (product names, symbols) may stay.
      const kept = new Set(Object.keys(en).flatMap((key) => (translation[key] === en[key] ? [en[key]] : [])));
      const left = textsOf(books.get(locale) as ExcelJS.Workbook).filter(
        (text) => catalogTexts.has(text) && !kept.has(text),
      );
      expect([...new Set(left)], locale).toEqual([]);
    }
  });

  it('names stances and source kinds in the language, never by a catalog key', () => {
    // A label passed on untranslated reads "stance.recommended": no cell may be a catalog key.
    const keys = new Set(Object.keys(en));
    for (const [locale, book] of books) {
      expect(
        textsOf(book).filter((text) => keys.has(text)),
        locale,
      ).toEqual([]);
    }
    expect(textsOf(books.get('de-DE') as ExcelJS.Workbook)).toContain(CATALOGS.de?.['stance.recommended']);
    expect(textsOf(books.get('de-DE') as ExcelJS.Workbook)).toContain(CATALOGS.de?.['source.owned']);
  });

  it('keeps numbers and dates native, with the same number formats in every language', () => {
    const de = books.get('de-DE') as ExcelJS.Workbook;
    const us = books.get('en-US') as ExcelJS.Workbook;
    const figures = (book: ExcelJS.Workbook, sheet: number) => {
      const out: [unknown, string][] = [];
      book.worksheets[sheet]?.eachRow((row) =>
        row.eachCell((cell) => {
          if (typeof cell.value === 'number' || cell.value instanceof Date)
            out.push([cell.value, cell.numFmt]);
        }),
      );
      return out;
    };
    for (let sheet = 0; sheet < WORKBOOK_SHEETS.length; sheet++) {
      expect(figures(de, sheet)).toEqual(figures(us, sheet));
    }
    // The weighted presence is the API's number with the percent-point format, not a German string.
    const presence = de.getWorksheet('Präsenz');
    const values: ExcelJS.Cell[] = [];
    presence?.eachRow((row) => {
      if (row.getCell(1).value === 'Gewichtete Präsenz' && typeof row.getCell(2).value === 'number') {
        values.push(row.getCell(2));
      }
    });
    const weighted = (snapshot.payloads['presence.weighted']?.data as { current: number } | undefined)
      ?.current;
    expect(values[0]?.value).toBe(weighted);
    expect(values[0]?.numFmt).toBe(excelFormat(ruleFor('presence.weighted')));
    const about = de.getWorksheet('Info');
    let generated: unknown;
    about?.eachRow((row) => {
      if (row.getCell(1).value === 'Erstellt am (UTC)') generated = row.getCell(2).value;
    });
    expect(generated).toBeInstanceOf(Date);
  });

  it('keeps table names as English ids, so formulas and queries survive a language change', () => {
    const names = (book: ExcelJS.Workbook) =>
      book.worksheets.flatMap((ws) => Object.keys((ws as unknown as { tables: object }).tables ?? {}));
    const us = names(books.get('en-US') as ExcelJS.Workbook);
    expect(us.length).toBeGreaterThan(20);
    expect(names(books.get('de-DE') as ExcelJS.Workbook)).toEqual(us);
  });
});
