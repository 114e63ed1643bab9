/**
 * Draws docs/report-preview.png, the README picture: the first pages of the demo's Northwind
 * "Core buying journeys" PDF in English, then the same pages in German (`locale: de-DE`), side by
 * side. Run it with `npm run docs:preview` after a change to the report templates or the catalogs,
 * and commit the PNG.
 *
 * 1. runs the demo (the same code as `reportd demo`: sandbox, sync, render) into a temporary folder,
 *    once per locale;
 * 2. turns the first pages of each PDF into PNGs with poppler's `pdftoppm -png -r 40`;
 * 3. lays them side by side on one HTML page (the PNGs as data: URLs) and screenshots it with the
 *    Chromium reportd renders with, so nothing beyond reportd's own dependencies is needed.
 *
 * Needs: poppler-utils (pdftoppm) and Chromium, both installed by scripts/install.sh.
 * Options (environment): PREVIEW_PAGES (pages per locale, default 2), PREVIEW_DPI (default 40),
 * PREVIEW_OUT.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runDemo } from '../src/demo/demo.js';
import { launchBrowser } from '../src/report/browser-slot.js';
import { findChromium } from '../src/report/chromium.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const out = process.env.PREVIEW_OUT ?? join(root, 'docs/report-preview.png');
const pages = Number(process.env.PREVIEW_PAGES ?? 2);
const LOCALES = ['en-US', 'de-DE'] as const;
const dpi = Number(process.env.PREVIEW_DPI ?? 40);
const SET_NAME = 'Core buying journeys';

const work = mkdtempSync(join(tmpdir(), 'reportd-preview-'));
try {
  const pngs: string[] = [];
  let pdf = '';
  for (const locale of LOCALES) {
    process.stdout.write(`running the demo in ${locale} (sandbox, sync, render)…\n`);
    const demo = await runDemo({ outDir: join(work, `demo-output-${locale}`), locale });
    pdf = demo.files.find((file) => file.endsWith('.pdf') && file.includes(SET_NAME)) ?? '';
    if (!pdf) throw new Error(`the demo wrote no PDF for "${SET_NAME}": ${demo.files.join(', ')}`);
    const prefix = join(work, `page-${locale}`);
    execFileSync('pdftoppm', ['-png', '-r', String(dpi), '-f', '1', '-l', String(pages), pdf, prefix]);
    const written = readdirSync(work)
      .filter((name) => name.startsWith(`page-${locale}`) && name.endsWith('.png'))
      .sort()
      .map((name) => join(work, name));
    if (written.length === 0) throw new Error(`pdftoppm wrote no page of ${pdf}`);
    pngs.push(...written);
  }

  const images = pngs
    .map((png) => `<img src="data:image/png;base64,${readFileSync(png).toString('base64')}" alt="">`)
    .join('');
  const html = `<!doctype html><html><head><style>
    html, body { margin: 0; background: #e9edf2; }
    #sheet { display: inline-flex; gap: 14px; padding: 14px; }
    img { display: block; background: #fff; box-shadow: 0 1px 4px rgba(15, 30, 50, .28); }
  </style></head><body><div id="sheet">${images}</div></body></html>`;

  const browser = await launchBrowser({
    executablePath: findChromium(),
    handleSignals: true,
    protocolTimeoutMs: 60_000,
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 2000, height: 1200, deviceScaleFactor: 1 });
    await page.setContent(html, { waitUntil: 'load' });
    const sheet = await page.$('#sheet');
    if (!sheet) throw new Error('preview page did not render');
    await sheet.screenshot({ path: out as `${string}.png`, type: 'png' });
  } finally {
    await browser.close();
  }
  const kb = Math.round(statSync(out).size / 1024);
  process.stdout.write(
    `wrote ${relative(process.cwd(), out) || out} (${pngs.length} pages of "${basename(pdf)}", ${kb} KB)\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
