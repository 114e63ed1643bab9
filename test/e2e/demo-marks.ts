import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { beforeAll, describe, expect, it } from 'vitest';
import { readMarkedContent } from '../helpers/pdf-marked-content.js';
import { readPdfStructure } from '../helpers/pdf-structure.js';

/**
 * The demo's documents read back as a reader gets them (pdftotext, the structure tree through qpdf,
 * the emails' HTML and text parts): the marks they show mean what their legend says. Only a likely
 * change has an arrow, so the changes marked in a document are exactly the likely changes it states
 * ("12 changes judged together; 3 likely"); and every PDF is wholly tagged: no marked content
 * outside the structure tree (the digest's contents page included), no element or parent tree entry
 * naming content that is not there, header cells in every table. demo.test.ts runs these checks on
 * the folder its one `reportd demo` wrote (`demoOut`), beside the quick start's own.
 */

/** "12 changes judged together; 3 likely", as the documents state it (the demo writes en-US). */
const STATED = /(\d+) changes? judged(?: together)?; (\d+) likely/g;

/** The changes a text marks: an arrow and the signed change after it, each change once. */
function marked(text: string): Set<string> {
  return new Set([...text.matchAll(/([▲▼])\s*([+−][\d.,]+)/gu)].map((m) => `${m[1]} ${m[2]}`));
}

/** How many likely changes a document (or one set's part of it) states, from its distinct lines. */
function statedLikely(text: string): number[] {
  const lines = new Set([...text.replace(/\s+/g, ' ').matchAll(STATED)].map((m) => m[0]));
  return [...lines].map((line) => Number(/; (\d+) likely/.exec(line)![1]));
}

const pdftotext = (file: string, pages?: [number, number]) =>
  execFileSync('pdftotext', [...(pages ? ['-f', String(pages[0]), '-l', String(pages[1])] : []), file, '-'], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });

export function describeDemoMarks(demoOut: () => string): void {
  describe('the demo: marks as the legend says, and every PDF wholly tagged', () => {
    let out: string;
    let pdfs: string[];

    beforeAll(() => {
      out = demoOut();
      pdfs = readdirSync(out)
        .filter((f) => f.endsWith('.pdf'))
        .map((f) => join(out, f));
    });

    it('marks in each report PDF exactly the likely changes it states', () => {
      let likely = 0;
      for (const file of pdfs.filter((f) => !f.includes('weekly-executive'))) {
        const text = pdftotext(file);
        const stated = statedLikely(text);
        // One report, one family: every page that states it says the same.
        expect(stated, file).toHaveLength(1);
        expect([...marked(text)], file).toHaveLength(stated[0]!);
        likely += stated[0]!;
      }
      // The demo's newest run has likely changes, so the rule is seen marking, not only staying plain.
      expect(likely).toBeGreaterThan(0);
    });

    it("marks in the digest PDF, set by set, exactly the likely changes each set's section states", () => {
      const file = pdfs.find((f) => f.includes('weekly-executive'))!;
      const { outline } = readPdfStructure(file);
      const pageCount = Number(
        /Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))![1],
      );
      // Top-level bookmarks: cover, contents, portfolio, then one per set, each to its first page.
      const sets = outline.slice(3);
      expect(sets.length).toBe(3);
      let total = 0;
      for (const [i, set] of sets.entries()) {
        const last = (sets[i + 1]?.page ?? pageCount + 1) - 1;
        const text = pdftotext(file, [set.page, last]);
        const stated = statedLikely(text);
        expect(stated, set.title).toHaveLength(1);
        expect([...marked(text)], set.title).toHaveLength(stated[0]!);
        total += stated[0]!;
      }
      // The portfolio repeats the sets' headline changes: no mark there that the sets do not state.
      expect([...marked(pdftotext(file))]).toHaveLength(total);
      expect(total).toBeGreaterThan(0);
    });

    it('marks in the digest email, HTML and text, exactly the likely changes its sets state', async () => {
      const mail = await simpleParser(readFileSync(join(out, 'weekly-executive.eml')));
      for (const body of [mail.html as string, mail.text ?? '']) {
        // Each set's note once (a set per section), each of its headline changes once.
        const stated = [...body.replace(/\s+/g, ' ').matchAll(STATED)].map((m) => Number(m[2]));
        expect(stated).toHaveLength(3);
        const likely = stated.reduce((a, b) => a + b, 0);
        expect(likely).toBeGreaterThan(0);
        expect(body.match(/[▲▼]/gu) ?? []).toHaveLength(likely);
      }
      // Direction and verdict in words for a screen reader, on a mark and on a plain change alike.
      expect(mail.html).toMatch(/aria-label="down \d+\.\d points, likely change, worse"/);
      expect(mail.html).toMatch(/aria-label="(?:up|down) [\d.]+, not judged"/);
    });

    it('leaves no marked content outside the structure tree nor structure without content, and gives every table header cells', () => {
      expect(pdfs).toHaveLength(4);
      for (const file of pdfs) {
        const name = file.split('/').at(-1);
        const read = readMarkedContent(file);
        expect(read.sequences, name).toBeGreaterThan(0);
        expect(read.orphans, name).toEqual([]);
        // Table rules and boxes made artifacts leave no MCID behind in their elements or the parent tree.
        expect(read.dangling, name).toEqual([]);
        expect(read.tables, name).toBeGreaterThan(0);
        expect(read.tablesWithoutHeaders, name).toBe(0);
      }
    });

    it('paints no rule, box or background inside tagged text in any PDF, the digest included', () => {
      expect(pdfs).toHaveLength(4);
      for (const file of pdfs) {
        const name = file.split('/').at(-1);
        const pdf = readPdfStructure(file);
        // Table rules, row backgrounds and badges' boxes are artifacts, never part of what is read...
        const pages = pdf.pathsInTaggedText.flatMap((count, page) =>
          count > 0 ? [`page ${page + 1}: ${count}`] : [],
        );
        expect(pages, name).toEqual([]);
        // ...while the charts' marks stay the content of their figures (the count is not vacuous).
        expect(pdf.pathsInFigures, name).toBeGreaterThan(0);
      }
    });

    it("links each entry of the digest's contents to its page, its page number read with it", () => {
      const file = pdfs.find((f) => f.includes('weekly-executive'))!;
      const pdf = readPdfStructure(file);
      // Portfolio and three sets: a list of four links.
      expect(pdf.elements.get('/L')).toBeGreaterThanOrEqual(1);
      expect(pdf.elements.get('/Link')).toBeGreaterThanOrEqual(4);
      // Compared without spaces: Chromium's bookmark titles space the words of a heading unevenly.
      const bare = (text: string) => text.replace(/\s+/g, '');
      const contents = bare(pdf.structureText.split(/\f/)[1]!);
      const portfolioPage = pdf.outline[2]!.page;
      expect(contents).toContain(`Portfolio${portfolioPage}`);
      for (const set of pdf.outline.slice(3)) expect(contents).toContain(`${bare(set.title)}${set.page}`);
    });
  });
}
