import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Frame, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../src/report/browser-slot.js';
import { findChromium } from '../../src/report/chromium.js';
import { spawnCli } from '../helpers/cli.js';

/**
 * `reportd studio --sandbox --hostile` in real Chromium: the preview follows the stylesheet on disk,
 * a broken template is named with file:line in the page while the last good render stays, fixing it
 * recovers, and nothing the preview loads leaves the studio (request interception count 0).
 */

let child: ChildProcess;
let url: string;
let templates: string;
let browser: Browser;
let page: Page;
const left: string[] = [];

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve()
      .then(probe)
      .catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const docFrame = (): Frame | undefined => page.frames().find((f) => f.url().includes('/preview/doc'));
// Evaluated in the preview as text: the test runs in Node, the expression in the page.
const coverColor = async (): Promise<string | undefined> =>
  (await docFrame()?.evaluate(
    "(() => { const band = document.querySelector('.cover-band'); return band ? getComputedStyle(band).backgroundColor : undefined; })()",
  )) as string | undefined;

beforeAll(async () => {
  child = spawnCli(['studio', '--sandbox', '--hostile', '--port', '0']);
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    out += String(chunk);
  });
  [url, templates] = await until(
    'the studio to print its URL',
    async () => {
      const found = /reportd studio: (http:\/\/\S+)\n\s+templates: (\S+)/.exec(out);
      return found ? [found[1]!, found[2]!] : undefined;
    },
    240_000,
  );
  const executablePath = findChromium();
  browser = await launchBrowser({ executablePath, handleSignals: false, protocolTimeoutMs: 120_000 });
  page = await browser.newPage();
  await page.setRequestInterception(true);
  const origin = new URL(url).origin;
  page.on('request', (request) => {
    const target = request.url();
    if (target.startsWith(`${origin}/`) || target.startsWith('data:')) {
      void request.continue();
    } else {
      left.push(target);
      void request.abort();
    }
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  child?.kill('SIGTERM');
  await new Promise((resolve) => child?.once('exit', resolve));
});

describe('reportd studio --sandbox', () => {
  it('follows the files on disk, shows a template error with its position and keeps the last render', async () => {
    await page.goto(url, { waitUntil: 'load' });
    expect(await until('the preview', coverColor, 120_000)).toBe('rgb(31, 78, 121)');

    // The stylesheet's --primary on disk: the preview's cover follows.
    const css = join(templates, 'report', 'report.css');
    const started = Date.now();
    writeFileSync(css, readFileSync(css, 'utf8').replace('--primary: #1f4e79;', '--primary: #c0392b;'));
    await until('the new colour', async () =>
      (await coverColor()) === 'rgb(192, 57, 43)' ? true : undefined,
    );
    const followMs = Date.now() - started;
    console.log(`studio: colour on screen ${followMs} ms after the CSS was saved`);

    // A template that does not parse: the page names file and line, the last render stays.
    const cover = join(templates, 'report', 'partials', 'cover.hbs');
    const good = readFileSync(cover, 'utf8');
    const line = good.split('\n').findIndex((l) => l.includes('cover-brand')) + 1;
    writeFileSync(
      cover,
      good.replace('<h1 class="cover-brand">{{brand}}</h1>', '<h1 class="cover-brand">{{brand}</h1>'),
    );
    const shown = await until('the error', async () => {
      const text = await page.$eval('#problems', (el) =>
        el.classList.contains('shown') ? el.textContent : '',
      );
      return text ? text : undefined;
    });
    expect(shown).toMatch(new RegExp(`report/partials/cover\\.hbs:${line}:\\d+: Parse error`));
    expect(await coverColor()).toBe('rgb(192, 57, 43)');

    // Fixed: the error goes and the preview follows the files again.
    writeFileSync(cover, good.replace('{{t "report.kicker"}}', 'Studio check'));
    await until('the recovery', async () => {
      const hidden = await page.$eval('#problems', (el) => !el.classList.contains('shown'));
      const text = (await docFrame()?.evaluate("document.querySelector('.cover-kicker')?.textContent")) as
        | string
        | undefined;
      return hidden && text?.includes('Studio check') ? true : undefined;
    });
    expect(left).toEqual([]);
  }, 300_000);
});
