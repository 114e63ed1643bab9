import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { simpleParser } from 'mailparser';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryCliEnv, startDeliveryCliEnv } from '../delivery/cli-env.js';
import { pdfImages, pdfPixel, solidPng } from './images.js';

/**
 * `reports[].theme` end to end over the built CLI: two reports of one config, each in its client's
 * look, previewed with `reportd deliver --eml` (the email and its PDF and workbook as they would be
 * sent). Logos are told apart by what poppler lists, colours by a pixel of the printed cover.
 */

let env: DeliveryCliEnv;
let dir: string;
let beacon: Server;
let beaconUrl: string;
const hits: string[] = [];
const reportd = (config: string, ...args: string[]) => env.reportd(config, ...args);

const CLIENT_A = '#B0301C';
const CLIENT_B = '#1C7A3E';

function reportsYaml(reports: string): string {
  return `${env.accountsYaml}store: { path: ${join(dir, 'reportd.sqlite')} }
sync: { query_sets: [102], backfill_runs: 1 }
smtp: { url: "${env.smtp.url}", from: "Reports <reports@example.com>" }
log: { level: warn }
${reports ? `reports:\n${reports}` : 'reports: []\n'}`;
}

const report = (name: string, theme: string, formats = '[pdf]') => `  - name: ${name}
    query_sets: [102]
    formats: ${formats}
    schedule: { cron: "0 8 * * 1" }
    email: { to: [ceo@example.com] }
    theme: ${theme}
`;

beforeAll(async () => {
  env = await startDeliveryCliEnv();
  dir = env.dir;
  // Whatever a logo tried to fetch would land here: the tests expect it to stay empty.
  beacon = createServer((request, response) => {
    hits.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'image/png' }).end();
  });
  await new Promise<void>((resolve) => beacon.listen(0, '127.0.0.1', resolve));
  beaconUrl = `http://127.0.0.1:${(beacon.address() as AddressInfo).port}`;
  writeFileSync(join(dir, 'a.png'), solidPng(48, 24, [200, 40, 40]));
  writeFileSync(join(dir, 'b.png'), solidPng(30, 30, [40, 40, 200]));
  const config = env.writeConfig('reportd.yaml', reportsYaml(''));
  expect((await reportd(config, 'sync')).code).toBe(0);
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => beacon?.close(resolve));
  await env?.close();
});

async function preview(config: string, name: string) {
  const result = await reportd(config, 'deliver', '--report', name, '--eml', `${name}.eml`);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const mail = await simpleParser(readFileSync(join(dir, `${name}.eml`)));
  const pdf = mail.attachments.find((a) => a.contentType === 'application/pdf');
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, pdf!.content);
  return { mail, file };
}

const channels = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
/** Within a few steps per channel: the PDF's colour management may round a shade. */
const near = (actual: string, expected: string) =>
  channels(actual).every((value, i) => Math.abs(value - (channels(expected)[i] ?? 0)) <= 6);

describe('reports[].theme', () => {
  it('prints each report with its own logo, primary colour, cover title and footer', async () => {
    const config = env.writeConfig(
      'themes.yaml',
      reportsYaml(
        report(
          'client-a',
          `{ logo: a.png, primary: "${CLIENT_A}", cover_title: "Acme Agency — monthly review", footer: "Prepared by Acme Agency" }`,
          '[pdf, xlsx]',
        ) + report('client-b', `{ logo: b.png, primary: "${CLIENT_B}" }`),
      ),
    );
    const check = await reportd(config, 'check');
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);

    const a = await preview(config, 'client-a');
    const b = await preview(config, 'client-b');

    // Each PDF embeds its own logo, at its own pixel size, and not the other's.
    expect(pdfImages(a.file)).toContainEqual({ width: 48, height: 24 });
    expect(pdfImages(a.file)).not.toContainEqual({ width: 30, height: 30 });
    expect(pdfImages(b.file)).toContainEqual({ width: 30, height: 30 });
    expect(pdfImages(b.file)).not.toContainEqual({ width: 48, height: 24 });

    // The cover's band (top of page 1, inside the margins) is printed in each report's primary colour.
    const pixelA = pdfPixel(a.file, 100, 24);
    const pixelB = pdfPixel(b.file, 100, 24);
    expect(near(pixelA, CLIENT_A), `${pixelA} ≈ ${CLIENT_A}`).toBe(true);
    expect(near(pixelB, CLIENT_B), `${pixelB} ≈ ${CLIENT_B}`).toBe(true);

    const textA = execFileSync('pdftotext', [a.file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    expect(textA).toContain('Prepared by Acme Agency'); // every page's footer
    // The cover's kicker: spaced capitals, which a text reader splits letter by letter.
    expect(textA.replace(/\s/g, '').toUpperCase()).toContain('ACMEAGENCY—MONTHLYREVIEW');
    const textB = execFileSync('pdftotext', [b.file, '-'], { encoding: 'utf8' });
    expect(textB).not.toContain('Acme Agency');

    // The email follows: the band in the primary colour, the logo as an inline part, the footer.
    expect(a.mail.html).toContain(CLIENT_A);
    expect(b.mail.html).toContain(CLIENT_B);
    // The logo is an inline PNG part (cid:), the file's pixels encoded again by reportd.
    const inline = a.mail.attachments.find((part) => part.cid === 'logo@reportd');
    expect(inline?.contentType).toBe('image/png');
    const pixels = PNG.sync.read(inline!.content);
    expect([pixels.width, pixels.height]).toEqual([48, 24]);
    expect([...pixels.data.subarray(0, 4)]).toEqual([200, 40, 40, 255]);
    const raw = readFileSync(join(dir, 'client-a.eml'), 'utf8').replace(/=\r?\n/g, ''); // soft line breaks
    expect(raw).toMatch(/src=(3D)?"cid:logo@reportd"/);
    expect(a.mail.text).toContain('Prepared by Acme Agency');
    expect(a.mail.text).toContain('Acme Agency — monthly review');

    // And the workbook: sheet banners in the primary colour, the title and footer in Excel's print header.
    const xlsx = a.mail.attachments.find((part) => part.filename?.endsWith('.xlsx'));
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx!.content as unknown as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    expect(sheet.getCell(1, 1).font?.color?.argb).toBe(`FF${CLIENT_A.slice(1)}`);
    expect(sheet.headerFooter.oddHeader).toContain('Acme Agency — monthly review');
    expect(sheet.headerFooter.oddFooter).toContain('Prepared by Acme Agency');
    expect(hits).toEqual([]);
  }, 300_000);

  it('refuses an SVG logo with an external reference and an uninstalled font; draws a scripted one as pixels', async () => {
    writeFileSync(
      join(dir, 'script.svg'),
      '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><script>fetch("/x")</script><rect width="40" height="20"/></svg>',
    );
    writeFileSync(
      join(dir, 'external.svg'),
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="20"><image xlink:href="${beaconUrl}/beacon.png" width="40" height="20"/></svg>`,
    );
    writeFileSync(
      join(dir, 'clean.svg'),
      '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><defs><linearGradient id="g"><stop offset="0" stop-color="#123456"/></linearGradient></defs><rect width="40" height="20" fill="url(#g)"/></svg>',
    );
    const config = env.writeConfig(
      'hostile.yaml',
      reportsYaml(
        report('scripted', '{ logo: script.svg }') +
          report('external', '{ logo: external.svg }') +
          report('clean', '{ logo: clean.svg, font: "No Such Font Family" }'),
      ),
    );
    const check = await reportd(config, 'check');
    expect(check.code).toBe(2);
    const lines = check.stderr.trim().split('\n');
    expect(lines).not.toContainEqual(expect.stringMatching(/reports\[0\]/));
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^ {2}reports\[1\]\.theme\.logo: .*external\.svg is refused: it refers to something outside the file \(href="http:/,
      ),
    );
    expect(lines).toContainEqual(
      '  reports[2].theme.font: font family "No Such Font Family" is not installed (fc-list : family lists those that are)',
    );
    expect(check.stderr).not.toMatch(/\n\s+at /); // no stack trace

    // A delivery of the hostile report fails on one line naming the report and file; nothing fetched.
    const refused = await reportd(config, 'deliver', '--report', 'external', '--eml', 'external.eml');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/external\.svg is refused: it refers to something outside the file/);
    expect(refused.stderr).not.toMatch(/\n\s+at /);

    // The clean SVG is drawn to fill the logo box (40 × 20 → 800 × 400) and printed as that PNG.
    const clean = await preview(config, 'clean');
    expect(pdfImages(clean.file)).toContainEqual({ width: 800, height: 400 });
    expect(hits).toEqual([]);
  }, 300_000);
});
