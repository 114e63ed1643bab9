import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PdfRenderer } from '../../src/report/pdf.js';
import { renderSnapshot } from '../../src/report/render.js';
import { readMarkedContent } from '../helpers/pdf-marked-content.js';
import { expectPdfUa, readPdfStructure } from '../helpers/pdf-structure.js';
import { fixtureSnapshot } from './fixtures.js';

/**
 * A report in German, its brand full of XML's special characters, read back from the PDF's objects
 * (qpdf, poppler): PDF/UA-1 as the demo's English PDFs are (test/e2e/demo.test.ts), its alternative
 * text in the reader's language, its XMP well formed whatever the title holds, and the engine ×
 * intent matrix a table whose every cell has a row and a column header.
 */
let dir: string;
let renderer: PdfRenderer;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-pdf-ua-'));
  renderer = new PdfRenderer();
});

afterAll(async () => {
  await renderer.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('PDF/UA-1 in the reader’s language', () => {
  it('a German report: German alt text, dc:language de-DE, an escaped title, the matrix as a table', async () => {
    const brand = 'Kaffee & <Bohnen> "Süd"';
    const [file] = await renderSnapshot(fixtureSnapshot({ brand }), [], {
      formats: ['pdf'],
      outDir: dir,
      renderer,
      locale: 'de-DE',
      generatedAt: new Date('2026-11-16T06:00:00Z'),
    });
    const pdf = expectPdfUa(file!, {
      sets: 1,
      frontMatter: [],
      sections: ['Überblick', 'Präsenz', 'Life', 'Gravity', 'Scout', 'Markt'],
      pageFurniture: [/Seite \d+ von \d+/, /KI-Sichtbarkeitsbericht — Kaffee/],
      language: 'de-DE',
    });
    expect(pdf.title).toContain(brand);
    expect(pdf.xmp).toContain('Kaffee &#38; &#60;Bohnen&#62; &#34;Süd&#34;');
    // Charts and sparklines speak German: "…, 3 Läufe: von 41,0 % auf 43,7 %".
    expect(pdf.figureAlts.some((alt) => /\d Läufe: von [\d,]+\s% auf [\d,]+\s%/.test(alt))).toBe(true);
    expect(pdf.figureAlts.join('\n')).not.toMatch(/\bruns?\b|\bfrom\b/);
    // The matrix's intents are column headers and its engines row headers: both scopes are there.
    expect(pdf.headerScopes).toContain('/Row');
    expect(pdf.headerScopes).toContain('/Column');
  }, 120_000);
});

describe('decoration made an artifact leaves the structure tree whole', () => {
  it('an element that held only decoration leaves the tree; an empty cell keeps its place in the row', async () => {
    // A labelled box with a border and nothing in it, a cell with only a background and a border:
    // Chromium tags both boxes' painting as their elements' content; the finish makes it an artifact.
    const html = `<!doctype html><html lang="en"><head><title>Decoration</title></head><body>
      <h1>Title</h1>
      <section aria-label="box" style="border:2px solid #c00;height:20px"></section>
      <table><thead><tr><th>A</th><th>B</th></tr></thead>
      <tbody><tr><td style="background:#c00;border:1px solid #00c"></td><td>2</td></tr></tbody></table>
      </body></html>`;
    const file = join(dir, 'decoration.pdf');
    writeFileSync(file, await renderer.render(html));
    const marked = readMarkedContent(file);
    expect(marked.orphans).toEqual([]);
    expect(marked.dangling).toEqual([]);
    // The box is gone (its object freed, not left unreachable); the table keeps two cells a row.
    expect(Object.fromEntries(readPdfStructure(file).elements)).toEqual({
      '/Document': 1,
      '/H1': 1,
      '/Table': 1,
      '/TR': 2,
      '/TH': 2,
      '/TD': 2,
      '/NonStruct': 4,
    });
  }, 60_000);
});
