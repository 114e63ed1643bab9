import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryCliEnv, startDeliveryCliEnv } from './cli-env.js';

/**
 * The digest as a user meets it: the built CLI against the sandbox and a real SMTP server, the PDF
 * read back with poppler (pdftotext, pdfinfo) and its bookmarks with qpdf, never with reportd's code.
 */
let env: DeliveryCliEnv;
let config: string;
const reportd = (...args: string[]) => env.reportd(config, ...args);

const SETS = {
  101: 'Northwind — Core buying journeys',
  102: 'Northwind — Office & wholesale',
  201: 'Lumen Tea — Everyday tea',
};

const pdfOf = (index: number, name: string): string => {
  const attachment = env.smtp.messages[index]!.attachments.find((a) => a.filename?.endsWith('.pdf'))!;
  const file = join(env.dir, name);
  writeFileSync(file, attachment.content);
  return file;
};
const textOf = (file: string) =>
  execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
const pagesOf = (file: string) =>
  Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))![1]);
/** Top-level bookmarks and their children's titles, as qpdf reads them. */
const outlineOf = (file: string) => {
  const json = JSON.parse(
    execFileSync('qpdf', ['--json', '--json-key=outlines', file], { encoding: 'utf8' }),
  );
  type Item = { title: string; kids: Item[]; destpageposfrom1: number };
  return (json.outlines as Item[]).map((item) => ({
    title: item.title,
    page: item.destpageposfrom1,
    kids: item.kids.map((kid) => kid.title),
  }));
};

beforeAll(async () => {
  env = await startDeliveryCliEnv();
  config = env.writeConfig(
    'reportd.yaml',
    `${env.accountsYaml}sync: { query_sets: [101, 102, 201], backfill_runs: 2 }
smtp: { url: "${env.smtp.url}", from: "Reports <reports@example.com>" }
reports:
  - name: portfolio
    query_sets: [101, 102, 201]
    formats: [pdf]
    schedule: { cron: "0 8 * * 1" }
    email: { to: [ceo@example.com], subject: "Digest of {{sets}} sets — {{period}}" }
  - name: brief
    query_sets: [101, 102, 201]
    detail: summary
    formats: [pdf, xlsx]
    schedule: { cron: "0 8 * * 1" }
    email: { to: [cfo@example.com] }
log: { level: warn }
`,
  );
});

afterAll(() => env?.close());

describe('digest delivery', () => {
  it('sends one message with one PDF across three sets, nothing again, then marks sets without a new run', async () => {
    expect((await reportd('sync')).code).toBe(0);
    const first = await reportd('deliver', '--report', 'portfolio');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /^sent: report portfolio, digest of query set 101 run \d+, query set 102 run \d+, query set 201 run \d+ to ceo@example\.com/,
    );
    expect(env.smtp.messages).toHaveLength(1);
    const message = env.smtp.messages[0]!;
    expect(message.attachments.map((a) => a.filename?.split('.').pop())).toEqual(['pdf']);
    expect(message.subject).toMatch(/^Digest of 3 sets — Week \d+/);
    // The email body names every set with its headline figures, in HTML and in plain text.
    for (const name of Object.values(SETS)) {
      expect(message.html).toContain(name.replace('&', '&amp;'));
      expect(message.text).toContain(name);
    }
    expect(message.text).toMatch(/Weighted presence: \d/);
    expect(message.text).not.toMatch(/Query set 101, run/);

    const pdf = pdfOf(0, 'first.pdf');
    const text = textOf(pdf);
    for (const name of Object.values(SETS)) expect(text).toContain(name);
    expect(text).toContain('Portfolio');
    expect(text).toContain('Biggest changes across the portfolio');
    expect(text).toContain('Contents');
    expect(text).not.toContain('No new run since');

    // Bookmarks: cover, contents, portfolio, then one per set with its sections beneath it.
    const outline = outlineOf(pdf);
    const setEntries = outline.filter((entry) =>
      Object.values(SETS).some((name) => entry.title.includes(name)),
    );
    expect(setEntries).toHaveLength(3);
    for (const entry of setEntries) {
      expect(entry.kids).toEqual(
        expect.arrayContaining(['Overview', 'Presence', 'Gravity', 'Scout', 'Market']),
      );
    }
    // Page numbers run through the document and the contents page gives each set's first page.
    const pages = pagesOf(pdf);
    expect(text).toContain(`Page ${pages} of ${pages}`);
    const contents = execFileSync('pdftotext', ['-f', '2', '-l', '2', '-layout', pdf, '-'], {
      encoding: 'utf8',
    });
    // The contents page is printed in a second, shorter pass: its footer still counts every page.
    expect(contents).toContain(`Page 2 of ${pages}`);
    for (const entry of setEntries) {
      const line = contents
        .split('\n')
        .find((l) => l.includes(entry.title.split(' — ').at(-1)!.slice(0, 15)));
      expect(line?.trim().split(/\s+/).at(-1)).toBe(String(entry.page));
    }

    const again = await reportd('deliver', '--report', 'portfolio');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^already delivered: report portfolio, digest of /);
    expect(env.smtp.messages).toHaveLength(1);

    env.sandbox.publishRun(102);
    expect((await reportd('sync')).code).toBe(0);
    const next = await reportd('deliver', '--report', 'portfolio');
    expect(next.code).toBe(0);
    expect(env.smtp.messages).toHaveLength(2);
    const second = textOf(pdfOf(1, 'second.pdf'));
    // Two sets without a new run, each marked on the portfolio page and under its own heading. On the
    // portfolio page the mark wraps in its narrow column, and pdftotext reads it interleaved with the
    // headline cell beside it (a judged change's interval makes that cell taller), so only its start
    // is counted there.
    expect(second.match(/No new run\b/g)).toHaveLength(4);
    expect(second.match(/No new run since Week \d+/g)?.length).toBeGreaterThanOrEqual(2);
    expect((env.smtp.messages[1]!.text ?? '').match(/No new run since/g)).toHaveLength(2);

    const forced = await reportd('deliver', '--report', 'portfolio', '--force');
    expect(forced.code).toBe(0);
    expect(env.smtp.messages).toHaveLength(3);
    expect(env.smtp.messages[2]!.messageId).not.toBe(env.smtp.messages[1]!.messageId);
    // A forced resend is the same message again: the set that had a new run is still not "no new run".
    expect(textOf(pdfOf(2, 'forced.pdf')).match(/No new run\b/g)).toHaveLength(4);

    const history = JSON.parse((await reportd('history', '--json')).stdout);
    const digests = history.deliveries.filter((d: { report: string }) => d.report === 'portfolio');
    expect(
      digests.map((d: { covers: unknown[]; generation: number }) => [d.covers.length, d.generation]),
    ).toEqual([
      [3, 1],
      [3, 0],
      [3, 0],
    ]);
  }, 600_000);

  it('detail: summary gives at most two pages per set plus the portfolio, and one workbook', async () => {
    const sent = await reportd('deliver', '--report', 'brief');
    expect(sent.code).toBe(0);
    const message = env.smtp.messages.at(-1)!;
    // One PDF and one workbook for the three sets, both named by the report and the period.
    expect(message.attachments.map((a) => a.filename?.split('.').pop()).sort()).toEqual(['pdf', 'xlsx']);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(
      message.attachments.find((a) => a.filename?.endsWith('.xlsx'))!.content as unknown as ExcelJS.Buffer,
    );
    // The brief's choice: each set's overview (and its About and Run history), one Data sheet.
    expect(book.worksheets.map((ws) => ws.name)).toEqual([
      'Sets',
      ...['S1', 'S2', 'S3'].flatMap((label) => [
        `${label} Overview`,
        `${label} About`,
        `${label} Run history`,
      ]),
      'Data',
    ]);
    const setIds = new Set<unknown>();
    const data = book.getWorksheet('Data')!;
    const column = (data.getRow(1).values as unknown[]).indexOf('query_set_id');
    data.eachRow((row, n) => {
      if (n > 1) setIds.add(row.getCell(column).value);
    });
    expect(setIds).toEqual(new Set([101, 102, 201]));
    const pdf = pdfOf(env.smtp.messages.length - 1, 'brief.pdf');
    // Cover, contents, portfolio, then ≤ 2 per set.
    expect(pagesOf(pdf)).toBeLessThanOrEqual(3 + 2 * 3);
    const text = textOf(pdf);
    for (const name of Object.values(SETS)) expect(text).toContain(name);
    expect(text).not.toContain('Citations by engine');
  }, 300_000);

  it('deliver --eml writes the digest as one message without sending or queueing it', async () => {
    const before = env.smtp.messages.length;
    const file = join(env.dir, 'preview.eml');
    const result = await reportd('deliver', '--report', 'portfolio', '--eml', file);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe(file);
    expect(env.smtp.messages).toHaveLength(before);
  }, 300_000);
});
