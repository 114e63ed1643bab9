import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DigestPages, periodOf, renderDigestHtml } from '../../src/report/digest/html.js';
import { type DigestHtml, printDigestPdf } from '../../src/report/digest/render.js';
import { buildReportModel } from '../../src/report/model/index.js';
import { PdfRenderer } from '../../src/report/pdf.js';
import { loadReportTemplates } from '../../src/report/templates.js';
import { fixtureSnapshot } from './fixtures.js';

/**
 * The digest PDF prints the whole document once and then only its front matter with the contents'
 * page numbers. Checked against the plain way (the whole document printed twice) with poppler and
 * qpdf, never with reportd's own PDF reading: same text on every page, same bookmarks, and the
 * contents page's footer still counts every page.
 */
const meta = { generatedAt: new Date('2026-11-23T08:00:00Z'), version: 'test' };
const templates = loadReportTemplates();
const snapshots = ['Core journeys', 'Office & wholesale', 'Everyday tea'].map((name, i) =>
  fixtureSnapshot({ querySetId: 101 + i, querySet: name, brand: `Brand ${i + 1}`, runId: 9000 + i }),
);
const sets = snapshots.map((snapshot) => ({ model: buildReportModel(snapshot, [], meta), moves: [] }));
const html: DigestHtml = (pages, frontOnly) =>
  renderDigestHtml(
    {
      report: 'portfolio',
      sets,
      moves: [],
      contents: {},
      period: periodOf(snapshots.map((s) => s.run)),
      pages,
      frontOnly,
    },
    templates,
  );

let dir: string;
let renderer: PdfRenderer;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-digest-pdf-'));
  renderer = new PdfRenderer({ recycleAfter: 50 });
});

afterAll(async () => {
  await renderer.close();
  rmSync(dir, { recursive: true, force: true });
});

function save(name: string, bytes: Buffer): string {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  return file;
}
const pagesOf = (file: string) =>
  Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))![1]);
const pageText = (file: string, page: number) =>
  execFileSync('pdftotext', ['-f', String(page), '-l', String(page), '-layout', file, '-'], {
    encoding: 'utf8',
  });
type Bookmark = { title: string; kids: Bookmark[]; destpageposfrom1: number };
const bookmarks = (file: string): Bookmark[] =>
  JSON.parse(execFileSync('qpdf', ['--json', '--json-key=outlines', file], { encoding: 'utf8' })).outlines;
/** Every bookmark, depth first, as [title, page]. */
const outlineOf = (file: string) => {
  const flat = (items: Bookmark[]): [string, number][] =>
    items.flatMap((item) => [[item.title, item.destpageposfrom1] as [string, number], ...flat(item.kids)]);
  return flat(bookmarks(file));
};

/** The reference: the whole document printed twice, the second time with the first's page numbers. */
async function printedTwice(digest: DigestHtml): Promise<Buffer> {
  const first = digest();
  const draft = save('draft.pdf', await renderer.render(first.html, { ...first }));
  // Cover, contents, portfolio, then one top-level bookmark per set.
  const tops = bookmarks(draft).map((item) => item.destpageposfrom1);
  const pages: DigestPages = { portfolio: tops[2]!, sets: tops.slice(3) };
  const final = digest(pages);
  return renderer.render(final.html, { ...final });
}

describe('digest PDF', () => {
  it('equals the document printed twice: text of every page, bookmarks, page count', async () => {
    const fast = save('fast.pdf', await printDigestPdf(renderer, html, 3, true));
    const plain = save('plain.pdf', await printedTwice(html));
    const pages = pagesOf(plain);
    expect(pagesOf(fast)).toBe(pages);
    expect(outlineOf(fast)).toEqual(outlineOf(plain));
    for (let page = 1; page <= pages; page++) expect(pageText(fast, page)).toBe(pageText(plain, page));

    // The contents page: each set's first page as its bookmark says, and its own footer counts all pages.
    const contents = pageText(fast, 2);
    expect(contents).toContain(`Page 2 of ${pages}`);
    const setMarks = outlineOf(fast).filter(([title]) => title.startsWith('Brand '));
    expect(setMarks).toHaveLength(3);
    for (const [title, page] of setMarks) {
      const line = contents.split('\n').find((l) => l.includes(title.split(' — ')[0]!));
      expect(line?.trim().split(/\s+/).at(-1), title).toBe(String(page));
    }
    expect(execFileSync('qpdf', ['--check', fast], { encoding: 'utf8' })).toContain(
      'No syntax or stream encoding errors',
    );
  }, 300_000);

  it('a footer that gives the page total in a form it does not know: the whole document again, still right', async () => {
    // A user's footer template (templates.dir) with its own markup around Chromium's page total.
    const custom: DigestHtml = (pages, frontOnly) => {
      const doc = html(pages, frontOnly);
      return {
        ...doc,
        footerTemplate: `<div style="font-size:8px">p. <span class='pageNumber'></span>/<span class='totalPages'></span></div>`,
      };
    };
    const file = save('custom.pdf', await printDigestPdf(renderer, custom, 3, true));
    const pages = pagesOf(file);
    expect(pageText(file, 2)).toContain(`p. 2/${pages}`);
    expect(pageText(file, pages)).toContain(`p. ${pages}/${pages}`);
  }, 300_000);
});
