import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topLevelBookmarkPages, withFrontPages } from '../../src/report/digest/front-pages.js';
import { PdfRenderer } from '../../src/report/pdf.js';
import { readDraft } from '../../src/report/pdf-index.js';

/**
 * The digest's front-matter swap as an incremental update, on real Chromium PDFs, read back with
 * qpdf and poppler (never with the code under test): the draft's bytes stay as they were, the
 * swapped pages show the front matter, every other page and every bookmark the draft's.
 */
let dir: string;
let renderer: PdfRenderer;

const sections = (label: string, count: number) =>
  Array.from(
    { length: count },
    (_, i) => `<h1 style="break-before: page">${label} ${i + 1}</h1><p>${label} body ${i + 1}</p>`,
  ).join('');
const doc = (body: string) => `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-front-'));
  renderer = new PdfRenderer();
});

afterAll(async () => {
  await renderer.close();
  rmSync(dir, { recursive: true, force: true });
});

function pageText(pdf: Uint8Array, page: number): string {
  const file = join(dir, `p-${Math.random()}.pdf`);
  writeFileSync(file, pdf);
  return execFileSync('pdftotext', ['-f', String(page), '-l', String(page), file, '-'], { encoding: 'utf8' });
}

describe('front pages swapped into a rendered draft', () => {
  it('replaces pages 2..n in place, keeping the draft byte for byte and its bookmarks', async () => {
    const draftPdf = await renderer.render(doc(sections('Draft', 5)));
    const frontPdf = await renderer.render(doc(sections('Front', 3)));
    const draft = readDraft(draftPdf);
    expect(draft?.pageCount).toBe(5);
    expect(topLevelBookmarkPages(draft!)).toEqual([1, 2, 3, 4, 5]);

    const out = await withFrontPages(draft!, frontPdf, 3);
    expect(out).toBeDefined();
    // An incremental update: the draft is a prefix of the result.
    expect(Buffer.compare(out!.subarray(0, draftPdf.length), Buffer.from(draftPdf))).toBe(0);
    const file = join(dir, 'swapped.pdf');
    writeFileSync(file, out!);
    expect(execFileSync('qpdf', ['--check', file], { encoding: 'utf8' })).toContain(
      'No syntax or stream encoding errors',
    );
    expect(pageText(out!, 1)).toContain('Draft 1'); // the cover is the draft's own
    expect(pageText(out!, 2)).toContain('Front 2');
    expect(pageText(out!, 3)).toContain('Front 3');
    expect(pageText(out!, 4)).toContain('Draft 4');
    expect(pageText(out!, 5)).toContain('Draft 5');
    const outline = JSON.parse(
      execFileSync('qpdf', ['--json', '--json-key=outlines', file], { encoding: 'utf8' }),
    );
    expect(outline.outlines.map((o: { title: string }) => o.title)).toEqual(
      [1, 2, 3, 4, 5].map((n) => `Draft ${n}`),
    );
    expect((await PDFDocument.load(out!)).getPageCount()).toBe(5);
  });

  it('repeats the file identifier in the update, as a reader expects of every trailer', async () => {
    const rendered = Buffer.from(await renderer.render(doc(sections('Draft', 3))));
    // Chromium writes no /ID; one in the trailer (after every object, so no offset moves) stands for
    // a draft that has one.
    const id = '/ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>]';
    const withId = Buffer.from(
      rendered.toString('latin1').replace(/trailer\s*<</, `trailer\n<<${id}\n`),
      'latin1',
    );
    const front = await renderer.render(doc(sections('Front', 2)));
    const out = (await withFrontPages(readDraft(withId)!, front, 2))!;
    const lastTrailer = out.toString('latin1').slice(out.toString('latin1').lastIndexOf('trailer'));
    expect(lastTrailer).toContain(id);
    expect(lastTrailer).toMatch(/\/Prev \d+/);
  });

  it('declines what it cannot update, so the caller prints the whole document again', async () => {
    const draftPdf = await renderer.render(doc(sections('Draft', 4)));
    // A front matter longer than the draft gave it.
    const draft = readDraft(draftPdf);
    const longFront = await renderer.render(doc(sections('Front', 3)));
    expect(await withFrontPages(draft!, longFront, 2)).toBeUndefined();
    // A PDF with a cross-reference stream (not what Chromium writes), and one cut short.
    const streams = await (await PDFDocument.load(draftPdf)).save({ useObjectStreams: true });
    expect(readDraft(streams)).toBeUndefined();
    expect(readDraft(draftPdf.subarray(0, draftPdf.length - 100))).toBeUndefined();
  });
});
