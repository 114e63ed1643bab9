import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleFor } from '../../src/api/field-units.js';
import { CATALOGS } from '../../src/locale/locale.js';
import { excelFormat } from '../../src/report/format.js';
import { renderWorkbook, WORKBOOK_SHEETS } from '../../src/report/xlsx.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import type { StoredSnapshot } from '../../src/store/snapshots.js';
import { sandboxSnapshot } from './xlsx-snapshot.js';

const meta = { generatedAt: new Date('2026-11-22T03:00:00Z'), version: '9.9.9', account: 'acme' };
const en = CATALOGS.en as Readonly<Record<string, string>>;

let sandbox: Sandbox;
let snapshot: StoredSnapshot;
const books = new Map<string, ExcelJS.Workbook>();
const files = new Map<string, Buffer>();

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
    const buffer = await renderWorkbook(snapshot, [], { ...meta, locale });
    files.set(locale, buffer);
    books.set(locale, await open(buffer));
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

  // What Excel's accessibility checker and a screen reader rely on, read from the file's XML (Python's
  // zipfile, not exceljs): the title and language, a header row on every table, print titles, and
  // colour (data bars, colour scales) only ever over numbers written in the cells.
  it('is readable without sight: title and language, header rows, print titles, no meaning in colour alone', () => {
    const script = String.raw`
import json, re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
core = z.read('docProps/core.xml').decode()
book = z.read('xl/workbook.xml').decode()
def col(letters):
    n = 0
    for ch in letters: n = n * 26 + ord(ch) - 64
    return n
def cells_of(area):
    a, _, b = area.partition(':')
    (c1, r1), (c2, r2) = [re.match(r'([A-Z]+)(\d+)', x).groups() for x in (a, b or a)]
    return [(c, r) for c in range(col(c1), col(c2) + 1) for r in range(int(r1), int(r2) + 1)]
out = {'title': re.search(r'<dc:title>(.*?)</dc:title>', core).group(1),
       'language': re.search(r'<dc:language>(.*?)</dc:language>', core).group(1),
       'printTitles': len(re.findall(r'name="_xlnm.Print_Titles"', book)),
       'sheets': [], 'headerRows': [], 'colouredWithoutNumber': []}
for name in sorted(n for n in z.namelist() if re.match(r'xl/worksheets/sheet\d+\.xml$', n)):
    xml = z.read(name).decode()
    numbers = set()
    for m in re.finditer(r'<c r="([A-Z]+)(\d+)"([^>]*?)>(.*?)</c>', xml):
        if 't="' not in m.group(3) and '<v>' in m.group(4): numbers.add((col(m.group(1)), int(m.group(2))))
    for sqref in re.findall(r'<conditionalFormatting sqref="([^"]+)"', xml):
        for area in sqref.split():
            out['colouredWithoutNumber'] += [f'{name} {c}/{r}' for c, r in cells_of(area) if (c, r) not in numbers]
    out['sheets'].append(len(re.findall(r'<tablePart ', xml)))
for name in (n for n in z.namelist() if n.startswith('xl/tables/')):
    out['headerRows'].append('headerRowCount="0"' not in z.read(name).decode())
print(json.dumps(out))`;
    for (const [locale, buffer] of files) {
      const file = join(tmpdir(), `reportd-a11y-${process.pid}-${locale}.xlsx`);
      writeFileSync(file, buffer);
      const read = JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' }));
      rmSync(file);
      expect(read.title, locale).toBe(
        `${CATALOGS[locale.slice(0, 2)]!['report.title']!.replace('{brand}', snapshot.brand.name)} — ${snapshot.run.display_name}`,
      );
      expect(read.language).toBe(locale);
      // Every sheet holds a real table (header row, filter) and prints its title row atop each page.
      expect(read.sheets, locale).not.toContain(0);
      expect(read.printTitles, locale).toBe(read.sheets.length);
      expect(read.headerRows, locale).not.toContain(false);
      // Data bars and colour scales only over cells that hold their number.
      expect(read.colouredWithoutNumber, locale).toEqual([]);
    }
  });
});
