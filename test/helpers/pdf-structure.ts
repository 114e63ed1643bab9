import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { readMarkedContent } from './pdf-marked-content.js';

/**
 * A PDF as assistive technology meets it, read from its own objects with qpdf and poppler (never with
 * reportd's code): the structure tree's figures and table headers, the XMP packet, the bookmarks, the
 * text the structure tree holds, and any painting outside both the structure tree and an artifact.
 */
export interface PdfStructure {
  /** Every /Figure structure element's /Alt ('' when it has none). */
  figureAlts: string[];
  /** Every /TH structure element's /Scope (undefined when it has none). */
  headerScopes: (string | undefined)[];
  /** The structure element types and how many of each. */
  elements: Map<string, number>;
  /** The catalog's /Metadata stream, as poppler reads it (`pdfinfo -meta`). */
  xmp: string;
  /** The information dictionary's title. */
  title: string;
  outline: Bookmark[];
  /**
   * The text of the document's real content: the pages with every artifact taken out (qpdf's QDF
   * form edited line by line, then `pdftotext`). Text that is here is in the structure tree.
   */
  structureText: string;
  /** All the text of the pages (`pdftotext`). */
  text: string;
  /** Painting operators (text, fills, strokes, images) in no marked-content sequence, per page. */
  unmarkedPainting: number[];
  /**
   * Paths painted (fills and strokes) inside tagged real content, per page: inside a sequence that is
   * no artifact and in no /Figure (a chart's marks are its content). A rule or a box painted there is
   * decoration a screen reader meets as part of the text (PDF/UA-1 §7.1, ISO 32000-1 §14.8.2.2).
   */
  pathsInTaggedText: number[];
  /** Paths painted inside /Figure sequences (charts, sparklines: real content), in all. */
  pathsInFigures: number;
}

export interface Bookmark {
  title: string;
  page: number;
  kids: Bookmark[];
}

type Json = Record<string, unknown>;
/** qpdf's JSON writes text strings as `u:…`. */
const text = (value: unknown) => (typeof value === 'string' ? value.replace(/^u:/, '') : '');

export function readPdfStructure(file: string): PdfStructure {
  const json = JSON.parse(execFileSync('qpdf', ['--json', file], { encoding: 'utf8', maxBuffer: 1 << 30 }));
  const objects = Object.values(json.qpdf[1] as Record<string, { value?: Json }>).map((o) => o.value);
  const elements = objects.filter((v): v is Json => v?.['/Type'] === '/StructElem');
  const kinds = new Map<string, number>();
  for (const element of elements) {
    const kind = String(element['/S']);
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  const scopeOf = (element: Json) => {
    const attributes = [element['/A']].flat() as (Json | undefined)[];
    return attributes.map((a) => a?.['/Scope']).find((s) => s !== undefined) as string | undefined;
  };
  const trailer = (json.qpdf[1] as Record<string, { value: Json }>).trailer!.value;
  const info = json.qpdf[1][`obj:${trailer['/Info']}`]?.value as Json | undefined;
  type Raw = { title: string; destpageposfrom1: number; kids: Raw[] };
  const bookmarks = (items: Raw[]): Bookmark[] =>
    items.map((item) => ({ title: item.title, page: item.destpageposfrom1, kids: bookmarks(item.kids) }));
  return {
    figureAlts: elements.filter((e) => e['/S'] === '/Figure').map((e) => text(e['/Alt'])),
    headerScopes: elements.filter((e) => e['/S'] === '/TH').map(scopeOf),
    elements: kinds,
    xmp: execFileSync('pdfinfo', ['-meta', file], { encoding: 'utf8' }),
    title: text(info?.['/Title']),
    outline: bookmarks(json.outlines),
    text: execFileSync('pdftotext', [file, '-'], { encoding: 'utf8', maxBuffer: 1 << 28 }),
    ...contentStreams(file),
  };
}

/**
 * From the content streams qpdf decodes (`--qdf` writes each operator on its own line, as Chromium
 * does): painting at marked-content depth 0, page by page (clipping paths paint nothing and are not
 * counted), and the pages' text with every `/Artifact` sequence cut out. `pdfinfo -struct-text`
 * says the same from the structure tree but took 9 s of CPU for the demo's digest.
 */
function contentStreams(
  file: string,
): Pick<PdfStructure, 'unmarkedPainting' | 'pathsInTaggedText' | 'pathsInFigures' | 'structureText'> {
  const dir = mkdtempSync(join(tmpdir(), 'reportd-qdf-'));
  try {
    const qdf = join(dir, 'doc.qdf');
    execFileSync('qpdf', ['--qdf', '--object-streams=disable', file, qdf]);
    const source = readFileSync(qdf).toString('latin1');
    const paints = /(?:^|\s)(?:Tj|TJ|'|"|Do|sh|f\*?|F|S|s|B\*?|b\*?)$/;
    const paintsPath = /(?:^|\s)(?:f\*?|F|S|s|B\*?|b\*?)$/;
    const unmarkedPainting: number[] = [];
    const pathsInTaggedText: number[] = [];
    let pathsInFigures = 0;
    const real = source.replace(
      /(%% Contents for page \d+\n[\s\S]*?stream\n)([\s\S]*?)(endstream)/g,
      (_, head: string, body: string, tail: string) => {
        let depth = 0;
        let artifact = -1;
        let figure = -1;
        let count = 0;
        let inText = 0;
        const kept: string[] = [];
        for (const line of body.split('\n')) {
          const op = line.trim();
          if (/\b(BDC|BMC)$/.test(op)) {
            if (artifact < 0 && op.startsWith('/Artifact')) artifact = depth;
            if (figure < 0 && /^\/Figure\b/.test(op)) figure = depth;
            depth++;
          } else if (op === 'EMC') {
            depth--;
            if (depth === figure) figure = -1;
            if (depth === artifact) {
              artifact = -1;
              continue;
            }
          } else if (depth === 0 && paints.test(op)) count++;
          else if (depth > 0 && artifact < 0 && paintsPath.test(op)) {
            if (figure < 0) inText++;
            else pathsInFigures++;
          }
          if (artifact < 0) kept.push(line);
        }
        unmarkedPainting.push(count);
        pathsInTaggedText.push(inText);
        return `${head}${kept.join('\n')}${tail}`;
      },
    );
    const stripped = join(dir, 'real.qdf');
    writeFileSync(stripped, Buffer.from(real, 'latin1'));
    const fixed = join(dir, 'real.pdf');
    writeFileSync(fixed, execFileSync('fix-qdf', [stripped], { maxBuffer: 1 << 30 }));
    return {
      unmarkedPainting,
      pathsInTaggedText,
      pathsInFigures,
      structureText: execFileSync('pdftotext', [fixed, '-'], { encoding: 'utf8', maxBuffer: 1 << 28 }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface PdfUaExpectations {
  /** Top-level bookmarks that hold sections: the sets of a digest, the brand of a single report. */
  sets: number;
  /** Top-level bookmarks of the front matter (a digest's contents and portfolio). */
  frontMatter: readonly string[];
  /** The bookmarks under each set, in order: one per section. */
  sections: readonly string[];
  /** What the running header and footer print: on the pages, never in the structure tree. */
  pageFurniture: readonly RegExp[];
  /** The document's language, as dc:language gives it. */
  language?: string;
}

const unescapeXml = (text: string) =>
  text
    .replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** Asserts what PDF/UA-1 asks of `file` that a machine can check, and returns what it read. */
export function expectPdfUa(file: string, expected: PdfUaExpectations): PdfStructure {
  const pdf = readPdfStructure(file);
  const name = file.split('/').at(-1);
  // Every figure (chart, sparkline) says what it shows.
  expect(pdf.figureAlts.length, name).toBeGreaterThan(0);
  expect(
    pdf.figureAlts.filter((alt) => alt.trim() === ''),
    name,
  ).toEqual([]);
  // The XMP packet identifies PDF/UA-1 and carries the title the information dictionary has.
  expect(pdf.xmp, name).toContain('<pdfuaid:part>1</pdfuaid:part>');
  const dcTitle = /<dc:title>[\s\S]*?<rdf:li[^>]*>([^<]*)<\/rdf:li>/.exec(pdf.xmp)?.[1];
  expect(pdf.title, name).not.toBe('');
  expect(unescapeXml(dcTitle ?? ''), name).toBe(pdf.title);
  if (expected.language) {
    expect(pdf.xmp, name).toMatch(new RegExp(`<dc:language>[\\s\\S]*<rdf:li>${expected.language}</rdf:li>`));
  }
  // Bookmarks: the front matter, then one per set with one per section under it.
  const tops = pdf.outline;
  expect(
    tops.map((b) => b.title),
    name,
  ).toEqual(expect.arrayContaining([...expected.frontMatter]));
  const holding = tops.filter((b) => b.kids.some((kid) => expected.sections.includes(kid.title)));
  expect(holding, name).toHaveLength(expected.sets);
  for (const set of holding) {
    expect(
      set.kids.map((kid) => kid.title).filter((title) => expected.sections.includes(title)),
      `${name}: ${set.title}`,
    ).toEqual([...expected.sections]);
  }
  // Table headers keep the scope Chromium gives them.
  expect(pdf.headerScopes.length, name).toBeGreaterThan(0);
  expect(
    pdf.headerScopes.filter((scope) => scope !== '/Column' && scope !== '/Row'),
    name,
  ).toEqual([]);
  // The running header and footer are printed, but are no part of the structure tree.
  for (const furniture of expected.pageFurniture) {
    expect(pdf.text, name).toMatch(furniture);
    expect(pdf.structureText, name).not.toMatch(furniture);
  }
  // Nothing is painted outside both the structure tree and an artifact, and no rule or box inside
  // the text a screen reader reads.
  const pages = (counts: number[]) =>
    counts.flatMap((count, page) => (count > 0 ? [`page ${page + 1}: ${count}`] : []));
  expect(pages(pdf.unmarkedPainting), name).toEqual([]);
  expect(pages(pdf.pathsInTaggedText), `${name}: paths painted inside tagged text`).toEqual([]);
  // The content and the structure tree agree both ways: every sequence is claimed by an element, and
  // every MCID an element or the parent tree names is in the content (none left behind by artifacts).
  const marked = readMarkedContent(file);
  expect(marked.orphans, `${name}: marked content outside the structure tree`).toEqual([]);
  expect(marked.dangling, `${name}: structure pointing at content that is not there`).toEqual([]);
  return pdf;
}
