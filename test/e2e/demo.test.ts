import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumProcessesWith } from '../helpers/chromium-processes.js';
import { type CliResult, runCli } from '../helpers/cli.js';
import { expectPdfUa } from '../helpers/pdf-structure.js';
import { describeDemoMarks } from './demo-marks.js';

// One `reportd demo` for the file: the quick start's checks below and the marks' (demo-marks.ts) read
// the same folder, as the demo writes the same documents each time.
let out: string;
let result: CliResult;
// Inherited by the demo's Chromium: tells its browsers from those of tests running beside it.
const marker = randomUUID();

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'reportd-demo-e2e-'));
  result = await runCli(['demo', '--out', out], { env: { REPORTD_TEST_MARKER: marker } });
}, 240_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('reportd demo (the README quick start)', () => {
  it('exits 0 and prints every file it wrote', () => {
    expect(result.stderr).not.toMatch(/unexpected error|at .*\.js:\d+/);
    expect(result.code).toBe(0);
    const files = readdirSync(out);
    // Three query sets have published runs (the fourth has none and is skipped): a PDF each, and
    // the weekly digest across them.
    expect(files.filter((f) => f.endsWith('.pdf'))).toHaveLength(4);
    expect(files.filter((f) => f.startsWith('weekly-executive') && f.endsWith('.pdf'))).toHaveLength(1);
    expect(files.filter((f) => f.endsWith('.xlsx'))).toHaveLength(3);
    for (const file of files) expect(result.stdout).toContain(file);
    expect(result.stdout).toContain('Next steps');
  });

  it('writes a PDF whose text names the brand, the set and the run', () => {
    const pdf = readdirSync(out).find(
      (f) => f.startsWith('Northwind Coffee - Northwind — Core') && f.endsWith('.pdf'),
    );
    expect(pdf).toBeDefined();
    const text = execFileSync('pdftotext', ['-layout', join(out, pdf!), '-'], { encoding: 'utf8' });
    expect(text).toContain('Northwind Coffee');
    expect(text).toContain('Core buying journeys');
    expect(text).toMatch(/Week \d+ · 2026/);
    for (const section of ['Overview', 'Presence', 'Life', 'Gravity', 'Scout', 'Market'])
      expect(text).toContain(section);
  });

  it('writes workbooks that open with the six group sheets', async () => {
    const xlsx = readdirSync(out).find((f) => f.endsWith('.xlsx'))!;
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(join(out, xlsx));
    const names = workbook.worksheets.map((sheet) => sheet.name);
    for (const sheet of ['Overview', 'Presence', 'Life', 'Gravity', 'Scout', 'Market', 'About']) {
      expect(names).toContain(sheet);
    }
  });

  it('writes the weekly email as a digest of every set, with the digest PDF attached', async () => {
    const mail = await simpleParser(readFileSync(join(out, 'weekly-executive.eml')));
    // The demo published a newer run of one set: the period runs from the oldest run to the newest.
    const period = /^AI visibility digest — weekly-executive — Week (\d+) · 2026 – Week (\d+) · 2026$/.exec(
      mail.subject ?? '',
    );
    expect(period, mail.subject).not.toBeNull();
    expect(Number(period![1])).toBeLessThan(Number(period![2]));
    expect(mail.attachments.map((a) => a.contentType)).toEqual(['application/pdf']);
    for (const set of ['Core buying journeys', 'Office & wholesale', 'Everyday tea']) {
      expect(mail.text).toContain(set);
    }
    const digest = readdirSync(out).find((f) => f.startsWith('weekly-executive') && f.endsWith('.pdf'))!;
    const text = execFileSync('pdftotext', [join(out, digest), '-'], { encoding: 'utf8' });
    expect(text).toContain('Portfolio');
    for (const set of ['Core buying journeys', 'Office & wholesale', 'Everyday tea'])
      expect(text).toContain(set);
  });

  it('writes the alert email the published movement run caused, without attachment', async () => {
    const mail = await simpleParser(readFileSync(join(out, 'visibility-drop.eml')));
    expect(mail.subject).toMatch(
      /^Alert — visibility-drop — Northwind Coffee — Northwind — .+ — Week \d+ · 2026$/,
    );
    expect(mail.text).toMatch(/Gross presence changed −\d+\.\d pts/);
    expect(mail.text).toContain('Claim: "Northwind Coffee is closing all of its shops this year."');
    expect(mail.html).toContain('over stored runs');
    expect(mail.attachments).toHaveLength(0);
  });

  it("the email's headline numbers are the ones printed in the PDF it carries", async () => {
    const mail = await simpleParser(readFileSync(join(out, 'weekly-executive.eml')));
    const pdf = mail.attachments.find((a) => a.contentType === 'application/pdf')!;
    // Outside `out`: the demo's folder keeps exactly the files the demo wrote.
    const attached = join(mkdtempSync(join(tmpdir(), 'reportd-demo-mail-')), 'attached.pdf');
    writeFileSync(attached, pdf.content);
    const text = execFileSync('pdftotext', ['-layout', attached, '-'], { encoding: 'utf8' });
    // "Weighted presence: 42.3% (▲ +2.1 pts; −3.1 to +7.3 pts)": label, value, change and, for a
    // judged change, its interval, one line per KPI.
    const kpis = [
      ...(mail.text ?? '').matchAll(
        /^(.+): (\S+) \((?:[▲▼] )?(\S+(?: \S+)?)(?: (?:better|worse))?(?:; ([^)]+))?\)$/gmu,
      ),
    ];
    expect(kpis.length).toBeGreaterThanOrEqual(3);
    const flat = text.replace(/\s+/g, ' ');
    for (const [, label, value, delta, interval] of kpis) {
      // The PDF's KPI cards print their labels in capitals (CSS), the email as written.
      expect(text.toLowerCase()).toContain(label!.toLowerCase());
      expect(text).toContain(value!);
      expect(text).toContain(delta!);
      if (interval) expect(flat).toContain(interval);
    }
    expect(kpis.some(([, , , , interval]) => interval)).toBe(true);
  });

  it('writes metric_values.csv with the numbers of every set, and points at export and the SQL view', () => {
    const script =
      'import csv, json, sys\n' +
      "rows = list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8')))\n" +
      'print(json.dumps(rows))';
    const rows = JSON.parse(
      execFileSync('python3', ['-c', script, join(out, 'metric_values.csv')], {
        maxBuffer: 1 << 28,
      }).toString(),
    ) as Record<string, string>[];
    expect(new Set(rows.map((row) => row.query_set_id)).size).toBe(3);
    const gross = rows.find((row) => row.endpoint === 'presence.gross' && row.field === 'current');
    expect(gross).toMatchObject({ brand: 'Northwind Coffee', unit: 'percent' });
    expect(Number(gross!.value)).toBeGreaterThan(0);
    expect(result.stdout).toContain('reportd export');
    expect(result.stdout).toContain('v_metric_values');
  });

  // Issue 26's sweep: what a person reads names metrics in words, never by the store's paths
  // ("presence.gross.current") nor by a field that is itself a change ("deltaTimesCited").
  /** Every PDF's text (pdftotext) and every email's subject, text and HTML without tags, by file. */
  async function documentTexts(): Promise<[string, string][]> {
    const texts: [string, string][] = [];
    for (const file of readdirSync(out)) {
      if (file.endsWith('.pdf')) {
        texts.push([file, execFileSync('pdftotext', [join(out, file), '-'], { encoding: 'utf8' })]);
      } else if (file.endsWith('.eml')) {
        const mail = await simpleParser(readFileSync(join(out, file)));
        const html = typeof mail.html === 'string' ? mail.html.replace(/<[^>]+>/g, ' ') : '';
        texts.push([file, `${mail.subject}\n${mail.text}\n${html}`]);
      }
    }
    return texts;
  }

  it('prints no machine metric path and no "delta" field in any PDF, email or alert', async () => {
    const texts = await documentTexts();
    expect(texts.map(([file]) => file.slice(-4)).sort()).toEqual(
      [...Array(4).fill('.pdf'), '.eml', '.eml'].sort(),
    );
    const path =
      /\b(?:presence|life|gravity|scout|market|sentiment|position|errors?|sources?)\.[a-z_-]+(?:\.[a-z_.-]+)?/i;
    for (const [file, text] of texts) {
      expect(path.exec(text)?.[0], file).toBeUndefined();
      expect(/\bdelta\w*/i.exec(text)?.[0], file).toBeUndefined();
    }
  });

  // Issue 32: a judged change is printed with its interval as it is, never as "± half" beside an
  // uneven interval; its verdict is "likely change" or "no clear change", never "real"; and each
  // document says once how many changes it judged together (the digest once per set).
  it('prints intervals as they are, no "real", and the family once per document, in every PDF and email', async () => {
    const documents = await documentTexts();
    expect(documents).toHaveLength(6);
    for (const [file, raw] of documents) {
      const text = raw.replace(/\s+/g, ' ');
      expect(/± \d/.exec(text)?.[0], file).toBeUndefined();
      expect(/\breal\b/i.exec(text)?.[0], file).toBeUndefined();
      const families = text.match(/\d+ changes judged together; \d+ likely/g) ?? [];
      if (file.endsWith('.pdf')) {
        // A set's report (or the one-set digest): once; the digest of three sets: once per set.
        expect(families.length, file).toBe(file.startsWith('weekly-executive') ? 3 : 1);
        expect(text, file).toMatch(/[−+]?\d+\.\d to [−+]?\d+\.\d pts/);
        expect(text, file).toMatch(/no clear change|likely change/);
      }
    }
    // The report email carries the PDF's footnote: the digest's, once per set, in text and HTML.
    const digest = documents.find(([file]) => file === 'weekly-executive.eml')![1];
    expect((digest.match(/\d+ changes judged together; \d+ likely/g) ?? []).length).toBe(6);
    // The alert says its verdict in the same words.
    expect(documents.find(([file]) => file === 'visibility-drop.eml')![1]).toMatch(/\(likely change, /);
  });

  // Issue 35's acceptance, read from each PDF's own objects (qpdf, poppler), not from its HTML.
  it('writes every PDF, the digest too, as PDF/UA-1: alt text, XMP, a bookmark per section, scoped headers, page furniture outside the structure', () => {
    const pdfs = readdirSync(out).filter((f) => f.endsWith('.pdf'));
    expect(pdfs).toHaveLength(4);
    for (const file of pdfs) {
      const digest = file.startsWith('weekly-executive');
      expectPdfUa(join(out, file), {
        // The digest's front matter (cover, contents, portfolio), then one bookmark per set; a single
        // report's brand. Under each set, one bookmark per section it prints.
        sets: digest ? 3 : 1,
        frontMatter: digest ? ['Contents', 'Portfolio'] : [],
        sections: ['Overview', 'Presence', 'Life', 'Gravity', 'Scout', 'Market'],
        pageFurniture: [/Page \d+ of \d+/, digest ? /\d query sets · Week \d+/ : /AI visibility report — /],
      });
    }
  }, 120_000);

  it('leaves no Chromium process behind', () => {
    expect(chromiumProcessesWith(marker)).toEqual([]);
  });
});

describeDemoMarks(() => {
  expect(result.code, result.stderr).toBe(0);
  return out;
});
