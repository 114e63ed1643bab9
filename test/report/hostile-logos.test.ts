import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { simpleParser } from 'mailparser';
import { PNG } from 'pngjs';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailLogo } from '../../src/delivery/compose/email-logo.js';
import { launchBrowser } from '../../src/report/browser-slot.js';
import { findChromium } from '../../src/report/chromium.js';
import { LOGO_BOX } from '../../src/report/theme/raster-logo.js';
import { cachedLogo } from '../../src/report/theme/theme.js';
import { type DeliveryCliEnv, startDeliveryCliEnv } from '../delivery/cli-env.js';
import { everyShippedAttack, type HostileLogo, hostileLogos } from './hostile-logos.js';
import { pdfImages } from './images.js';

/**
 * Hostile logos against `reportd check` and everywhere a logo ships. Each is refused with one line
 * naming the report, the file and the reason, or shipped as a PNG reportd drew; opened where it ships
 * (the PNG as a document, the email's HTML, the PDF printed by real Chromium), nothing reaches the
 * local listener every attack points at. Opening one original SVG first shows the listener counts.
 */

let env: DeliveryCliEnv;
let beacon: Server;
let beaconUrl: string;
let browser: Browser;
let logos: HostileLogo[];
const hits: string[] = [];
/** What Chromium asked for beyond data: URLs (let through, so the listener sees it too). */
const asked: string[] = [];

beforeAll(async () => {
  env = await startDeliveryCliEnv();
  beacon = createServer((request, response) => {
    hits.push(request.url ?? '');
    response.writeHead(200, { 'access-control-allow-origin': '*' }).end();
  });
  await new Promise<void>((resolve) => beacon.listen(0, '127.0.0.1', resolve));
  beaconUrl = `http://127.0.0.1:${(beacon.address() as AddressInfo).port}`;
  logos = hostileLogos(beaconUrl);
  for (const logo of logos) writeFileSync(join(env.dir, logo.file), logo.content);
  writeFileSync(join(env.dir, 'all.svg'), everyShippedAttack(beaconUrl));
  browser = await launchBrowser({
    executablePath: findChromium(),
    handleSignals: false,
    protocolTimeoutMs: 60_000,
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => beacon?.close(resolve));
  await env?.close();
});

const reportsYaml = (
  reports: string,
) => `${env.accountsYaml}store: { path: ${join(env.dir, 'reportd.sqlite')} }
sync: { query_sets: [102], backfill_runs: 1 }
smtp: { url: "${env.smtp.url}", from: "Reports <reports@example.com>" }
log: { level: warn }
reports:
${reports}`;
const report = (name: string, logo: string, formats = '[pdf]') =>
  `  - { name: ${name}, query_sets: [102], formats: ${formats}, schedule: { cron: "0 8 * * 1" }, email: { to: [ceo@example.com] }, theme: { logo: ${logo} } }\n`;

/** A page that counts every request it makes beyond data: URLs, and lets it go on to the listener. */
async function countingPage(): Promise<Page> {
  const page = await browser.newPage();
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    if (!request.url().startsWith('data:') && !request.url().startsWith('file:')) asked.push(request.url());
    void request.continue();
  });
  return page;
}

/** Lets whatever a page started (a script's fetch, a stylesheet's import) reach the listener. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('hostile logos', () => {
  it('reportd check refuses each dangerous one in one line naming the file and why, and passes the rest', async () => {
    const config = env.writeConfig(
      'hostile-logos.yaml',
      reportsYaml(logos.map((logo, i) => report(`logo-${i}`, logo.file)).join('')),
    );
    const check = await env.reportd(config, 'check');
    expect(check.code).toBe(2);
    expect(check.stderr).not.toMatch(/\n\s+at /);
    const lines = check.stderr.split('\n').filter((line) => line.startsWith('  reports['));
    logos.forEach((logo, i) => {
      const line = lines.find((l) => l.startsWith(`  reports[${i}].theme.logo: `));
      if (logo.refused) {
        expect(line, logo.file).toMatch(logo.refused);
        expect(line).toContain(join(env.dir, logo.file));
      } else expect(line, logo.file).toBeUndefined();
    });
    expect(lines).toHaveLength(logos.filter((logo) => logo.refused).length);
  }, 120_000);

  it('ships the others as PNGs that make no request where they are opened', async () => {
    // The listener counts: the original script.svg, opened as a document, calls it.
    const page = await countingPage();
    await page.goto(`file://${join(env.dir, 'script.svg')}`, { waitUntil: 'load' });
    await settle();
    expect(hits).toContain('/script');
    hits.length = 0;
    asked.length = 0;

    for (const logo of logos.filter((l) => !l.refused)) {
      const drawn = await cachedLogo(join(env.dir, logo.file), logo.file);
      const decoded = PNG.sync.read(drawn.png);
      expect([decoded.width, decoded.height]).toEqual([drawn.width, drawn.height]);
      expect(drawn.width).toBeLessThanOrEqual(LOGO_BOX.width + 1);
      expect(drawn.height).toBeLessThanOrEqual(LOGO_BOX.height + 1);
      // Opened as a document, and as an image in a page.
      const file = join(env.dir, `${logo.file}.png`);
      writeFileSync(file, drawn.png);
      writeFileSync(`${file}.html`, `<!doctype html><img src="${logo.file}.png">`);
      await page.goto(`file://${file}`, { waitUntil: 'load' });
      await page.goto(`file://${file}.html`, { waitUntil: 'load' });
    }
    await settle();
    await page.close();
    expect(asked).toEqual([]);
    expect(hits).toEqual([]);
  }, 120_000);

  it('delivers every shippable attack at once as pixels: the PDF, the email and the workbook', async () => {
    const config = env.writeConfig('all-attacks.yaml', reportsYaml(report('all', 'all.svg', '[pdf, xlsx]')));
    expect((await env.reportd(config, 'sync')).code).toBe(0);
    const check = await env.reportd(config, 'check');
    expect(check.stderr).toBe('');
    const sent = await env.reportd(config, 'deliver', '--report', 'all', '--eml', 'all.eml');
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    const raw = readFileSync(join(env.dir, 'all.eml'));
    const mail = await simpleParser(raw);
    const drawn = await cachedLogo(join(env.dir, 'all.svg'), 'all.svg');

    // The email: one inline PNG part (the drawn logo, scaled to twice the email's slot), no SVG anywhere.
    const logo = mail.attachments.find((part) => part.cid === 'logo@reportd');
    expect(logo?.contentType).toBe('image/png');
    expect(logo?.content.equals(emailLogo(drawn).png)).toBe(true);
    expect(raw.toString('latin1')).not.toMatch(/svg\+xml/i);
    expect(String(mail.html)).not.toMatch(/<svg|<script|<foreignObject/i);

    // The PDF (printed by real Chromium while the listener listened) holds the PNG's pixels.
    const pdf = mail.attachments.find((part) => part.contentType === 'application/pdf');
    const pdfFile = join(env.dir, 'all.pdf');
    writeFileSync(pdfFile, pdf!.content);
    expect(pdfImages(pdfFile)).toContainEqual({ width: drawn.width, height: drawn.height });

    // The workbook: the same PNG, as its only picture.
    const xlsx = mail.attachments.find((part) => part.filename?.endsWith('.xlsx'));
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx!.content as unknown as ArrayBuffer);
    const media = (book.model as unknown as { media: { extension: string; buffer: Buffer }[] }).media;
    expect(media.map((m) => m.extension)).toEqual(['png']);
    expect(Buffer.from(media[0]!.buffer).equals(drawn.png)).toBe(true);

    // The email's HTML opened in a browser, with its inline part in place (as a mail client shows it).
    const page = await countingPage();
    await page.setContent(String(mail.html), { waitUntil: 'load' });
    await settle();
    await page.close();
    expect(asked).toEqual([]);
    expect(hits).toEqual([]);
  }, 300_000);
});
