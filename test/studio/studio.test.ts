import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Frame, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../src/report/browser-slot.js';
import { findChromium } from '../../src/report/chromium.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { foreignHeaders, rawRequest } from '../helpers/raw-http.js';

/**
 * `reportd studio --sandbox --hostile` in real Chromium: the preview follows the stylesheet on disk,
 * a broken template is named with file:line in the page while the last good render stays, fixing it
 * recovers, and nothing the preview loads leaves the studio (request interception count 0). The
 * pickers re-render (locale, theme); the tabs show the email's subject, the channels' payloads as
 * text and the printed PDF page by page.
 */

let child: ChildProcess;
let url: string;
let templates: string;
let configPath: string;
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
  [url, templates, configPath] = await until(
    'the studio to print its URL',
    async () => {
      const found = /reportd studio: (http:\/\/\S+)\n\s+templates: (\S+).*\n\s+config: (\S+)/.exec(out);
      return found ? [found[1]!, found[2]!, found[3]!] : undefined;
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

  it('re-renders on the pickers and shows the email, the payloads and the printed pages in tabs', async () => {
    await page.goto(url, { waitUntil: 'load' });
    await until('the preview', coverColor, 120_000);
    // Locale: the document is rendered again in German.
    // Of a fully parsed document: its lang is known before its body is.
    const lang = async () =>
      (await docFrame()?.evaluate(
        "document.readyState === 'complete' ? document.documentElement.lang : undefined",
      )) as string | undefined;
    await page.select('#report', 'per-set');
    await page.select('#locale', 'de-DE');
    await until('the German document', async () => ((await lang()) === 'de-DE' ? true : undefined));
    expect(await docFrame()?.evaluate("document.body.textContent.includes('Überblick')")).toBe(true);

    // Theme: the digest report's look over the per-set report, then none (the stylesheet's colour).
    const unthemed = await until('the cover', coverColor);
    expect(unthemed).not.toBe('rgb(46, 125, 50)');
    await page.select('#theme', 'digest');
    await until('the themed cover', async () =>
      (await coverColor()) === 'rgb(46, 125, 50)' ? true : undefined,
    );
    await page.select('#theme', '(built-in)');
    await until('the built-in cover', async () => ((await coverColor()) === unthemed ? true : undefined));

    // Sections: unticking one leaves it out of the document, the others stay.
    // Asked of a fully parsed document only: a preview still loading has its cover before its sections.
    const has = async (id: string) =>
      (await docFrame()?.evaluate(
        `document.readyState === 'complete' ? Boolean(document.getElementById('${id}')) : undefined`,
      )) as boolean | undefined;
    await until('the document with market', async () => ((await has('market')) === true ? true : undefined));
    await page.click('details summary');
    await page.click('#sections input[value="market"]');
    await until('the document without market', async () =>
      (await has('market')) === false && (await has('overview')) === true ? true : undefined,
    );
    await page.click('details summary'); // closed again: its list covers the tabs

    // The email tab: the subject the message would carry.
    const options = (await fetch(new URL('/api/options', url)).then((r) => r.json())) as {
      accounts: { sets: { id: number; name: string; runs: { name: string }[] }[] }[];
    };
    const set = options.accounts[0]!.sets[0]!;
    await page.click('button[data-tab="email-tab"]');
    expect(await page.$eval('#email-tab', (el) => el.hidden)).toBe(false);
    const subject = await until('the subject', async () => {
      const text = await page.$eval('#subject', (el) => el.textContent ?? '');
      return text ? text : undefined;
    });
    expect(subject).toContain(set.runs[0]!.name);

    // The Slack tab: the blocks the channel's sender would post, as text (no element from API strings).
    await page.click('button[data-tab="slack-tab"]');
    const slack = await page.$eval('#slack-tab pre', (el) => ({
      text: el.textContent ?? '',
      children: el.childElementCount,
      visible: el.getClientRects().length > 0,
    }));
    expect(slack.visible).toBe(true);
    expect(slack.children).toBe(0);
    const blocks = (JSON.parse(slack.text) as { 'chat.postMessage': { blocks: { type: string }[] } })[
      'chat.postMessage'
    ].blocks;
    expect(blocks[0]?.type).toBe('header');
    expect(slack.text).toContain(JSON.stringify(set.name).slice(1, -1));
    for (const type of ['teams', 'webhook']) {
      expect(await page.$eval(`#${type}-tab pre`, (el) => JSON.parse(el.textContent ?? '') !== null)).toBe(
        true,
      );
    }

    // Print PDF: the file the render pool prints, offered as a download.
    const href = (await page.evaluate("document.getElementById('pdf').href")) as string;
    const answer = await fetch(href);
    expect(answer.headers.get('content-disposition')).toMatch(/^attachment; filename="per-set\.pdf"/);
    const folder = mkdtempSync(join(tmpdir(), 'studio-pdf-'));
    let count: number;
    try {
      writeFileSync(join(folder, 'doc.pdf'), Buffer.from(await answer.arrayBuffer()));
      const info = execFileSync('pdfinfo', [join(folder, 'doc.pdf')], { encoding: 'utf8' });
      count = Number(/Pages:\s+(\d+)/.exec(info)![1]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    expect(count).toBeGreaterThan(1);

    // The Pages tab: one image per printed page, served by the studio.
    await page.click('button[data-tab="pages-tab"]');
    const images = await until(
      'the page images',
      async () => {
        const found = (await page.evaluate(
          "Array.from(document.querySelectorAll('#pages img'), (img) => ({ ok: img.complete && img.naturalWidth > 0, src: img.src }))",
        )) as { ok: boolean; src: string }[];
        return found.length === count && found.every((i) => i.ok) ? found : undefined;
      },
      120_000,
    );
    for (const image of images) expect(image.src.startsWith(new URL(url).origin)).toBe(true);
    expect(await page.$eval('#pages-note', (el) => el.textContent)).toBe(`${count} printed pages`);
    expect(left).toEqual([]);
  }, 300_000);
  it('follows the config file: a theme edited there shows, an invalid edit is named and the last render stays', async () => {
    await page.goto(url, { waitUntil: 'load' });
    await until('the preview', coverColor, 120_000);
    await page.select('#report', 'per-set');
    await page.select('#theme', 'digest');
    await until('the themed cover', async () =>
      (await coverColor()) === 'rgb(46, 125, 50)' ? true : undefined,
    );
    const good = readFileSync(configPath, 'utf8');
    writeFileSync(configPath, good.replace('#2e7d32', '#6a1b9a'));
    await until('the edited theme', async () =>
      (await coverColor()) === 'rgb(106, 27, 154)' ? true : undefined,
    );

    // A colour that is none: the page names the field, the last good look stays on screen.
    writeFileSync(configPath, good.replace('#2e7d32', 'purple-ish'));
    const shown = await until('the config error', async () => {
      const text = await page.$eval('#problems', (el) =>
        el.classList.contains('shown') ? el.textContent : '',
      );
      return text ? text : undefined;
    });
    expect(shown).toContain('primary');
    expect(shown).not.toMatch(/\n\s+at /);
    expect(await coverColor()).toBe('rgb(106, 27, 154)');
    // A picker changed meanwhile renders, and the file's problems stay named: it is still invalid.
    const locales = await page.$$eval('#locale option', (options) => options.map((o) => o.value));
    await page.select('#locale', locales.find((l) => l !== '' && l !== 'en-US')!);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await page.$eval('#problems', (el) => el.classList.contains('shown'))).toBe(true);
    expect(await page.$eval('#problems', (el) => el.textContent)).toContain('primary');
    await page.select('#locale', '');

    writeFileSync(configPath, good);
    await until('the recovery', async () => {
      const hidden = await page.$eval('#problems', (el) => !el.classList.contains('shown'));
      return hidden && (await coverColor()) === 'rgb(46, 125, 50)' ? true : undefined;
    });
    // A report added to the file is one of the pickers' reports at the page's next load.
    expect(good).toMatch(/- name: per-set\n/);
    writeFileSync(configPath, good.replace(/- name: per-set\n/, '- name: board-weekly\n'));
    await until('the new report among the pickers', async () => {
      await page.reload({ waitUntil: 'load' });
      const names = await page.$$eval('#report option', (options) => options.map((o) => o.value));
      return names.includes('board-weekly') ? true : undefined;
    });
    writeFileSync(configPath, good);
    expect(left).toEqual([]);
  }, 300_000);

  it("a report's own template folder, added to the config, is what its preview shows, and is followed", async () => {
    await page.goto(url, { waitUntil: 'load' });
    await until('the preview', coverColor, 120_000);
    await page.select('#report', 'per-set');
    await page.select('#theme', '');
    // The white-label folder holds only its stylesheet; the rest comes from the built-ins.
    const own = join(dirname(configPath), 'templates-acme');
    mkdirSync(join(own, 'report'), { recursive: true });
    const css = readFileSync(join(templates, 'report', 'report.css'), 'utf8').replace(
      /--primary: #[0-9a-f]{6};/,
      '--primary: #00695c;',
    );
    const ownCss = join(own, 'report', 'report.css');
    writeFileSync(ownCss, css);
    const good = readFileSync(configPath, 'utf8');
    const entry = /\n( +)- name: per-set\n/.exec(good)!;
    writeFileSync(
      configPath,
      good.replace(entry[0], `${entry[0]}${entry[1]}  templates: { dir: ./templates-acme }\n`),
    );
    await until("the report folder's stylesheet", async () =>
      (await coverColor()) === 'rgb(0, 105, 92)' ? true : undefined,
    );
    // The folder came with the reloaded config: saving a file there refreshes the preview too.
    writeFileSync(ownCss, css.replace('--primary: #00695c;', '--primary: #4a148c;'));
    await until('the edit in the report folder', async () =>
      (await coverColor()) === 'rgb(74, 20, 140)' ? true : undefined,
    );
    writeFileSync(configPath, good);
    expect(left).toEqual([]);
  }, 300_000);
});

describe('reportd studio at its edges', () => {
  it('refuses a foreign Host (421) or Origin (403) before any route; its own names are served', async () => {
    const foreign = foreignHeaders(url);
    for (const path of ['/api/options', '/preview/doc', '/preview/email', '/pdf', '/events']) {
      expect((await rawRequest(new URL(path, url).href, { headers: foreign.host })).status, path).toBe(421);
      expect((await rawRequest(new URL(path, url).href, { headers: foreign.origin })).status, path).toBe(403);
    }
    const own = new URL(url);
    for (const host of [own.host, `localhost:${own.port}`]) {
      const options = await rawRequest(new URL('/api/options', url).href, { headers: { host } });
      expect(options.status, host).toBe(200);
      expect(JSON.parse(options.body).reports.length).toBeGreaterThan(0);
    }
    const email = await rawRequest(new URL('/preview/email', url).href, {
      headers: { host: own.host, origin: own.origin },
    });
    expect(email.status).toBe(200);
  }, 120_000);

  it('answers an unknown report name with 404 and the names it knows; 1,000 of them leave its memory flat', async () => {
    const unknown = await fetch(new URL('/preview/doc?report=no-such-report', url));
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe(
      'no report named "no-such-report" in the config (its reports: "per-set", "digest")\n',
    );
    expect((await fetch(new URL('/pdf?report=per-set&theme=nobody', url))).status).toBe(404);
    const rss = () =>
      Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;
    const before = rss();
    for (let i = 0; i < 1_000; i++) {
      const path = i % 2 ? '/preview/doc' : '/preview/email';
      const res = await fetch(new URL(`${path}?report=unknown-${i}&locale=de-DE`, url));
      expect(res.status).toBe(404);
      await res.arrayBuffer();
    }
    const grown = rss() - before;
    console.log(
      `studio: RSS ${before.toFixed(0)} MB before 1,000 unknown-name previews, grew ${grown.toFixed(1)} MB`,
    );
    expect(grown).toBeLessThan(60);
  }, 120_000);

  it("shows the theme's logo in the email tab as the PNG it drew, where the sent message has cid:", async () => {
    const folder = dirname(configPath);
    writeFileSync(
      join(folder, 'studio-logo.svg'),
      '<svg xmlns="http://www.w3.org/2000/svg" width="30" height="10"><rect width="30" height="10" fill="#f9a825"/></svg>',
    );
    const good = readFileSync(configPath, 'utf8');
    writeFileSync(
      configPath,
      good.replace(
        /\n( +)cover_title: Sandbox digest/,
        (line, indent: string) => `${line}\n${indent}logo: studio-logo.svg`,
      ),
    );
    try {
      const html = await until('the logo in the email tab', async () => {
        const body = await fetch(new URL('/preview/email?report=digest', url)).then((r) => r.text());
        return body.includes('data:image/png;base64,') ? body : undefined;
      });
      expect(html).not.toContain('cid:');
      expect(html).not.toContain('<svg xmlns="http://www.w3.org/2000/svg" width="30"');
    } finally {
      writeFileSync(configPath, good);
    }
  }, 120_000);

  it('refuses a template file that links out of its folder, naming it, and never shows what it leads to', async () => {
    const secret = join(mkdtempSync(join(tmpdir(), 'studio-secret-')), 'secret.txt');
    writeFileSync(secret, 'body::after { content: "TOP-SECRET-KEY-MATERIAL" }');
    const css = join(templates, 'report', 'report.css');
    const original = readFileSync(css, 'utf8');
    rmSync(css);
    symlinkSync(secret, css);
    try {
      const problem = await until('the refusal', async () => {
        const body = await fetch(new URL('/preview/doc?report=per-set', url)).then((r) => r.text());
        expect(body).not.toContain('TOP-SECRET');
        const state = (await fetch(new URL('/api/state', url)).then((r) => r.json())) as {
          error: string[] | null;
        };
        return state.error?.find((line) => line.includes('outside the template folder'));
      });
      expect(problem).toContain('report.css');
      expect(problem).toContain(secret);
      const doc = await fetch(new URL('/preview/doc?report=per-set', url)).then((r) => r.text());
      expect(doc).not.toContain('TOP-SECRET');
    } finally {
      rmSync(css);
      writeFileSync(css, original);
      rmSync(dirname(secret), { recursive: true, force: true });
    }
  }, 120_000);

  it('exits non-zero with one line when its port is taken', async () => {
    const started = Date.now();
    const result = await runCli(['studio', '--config', configPath, '--port', new URL(url).port]);
    console.log(`studio: exited ${Date.now() - started} ms after start on a busy port`);
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/EADDRINUSE.*another process listens there/),
    ]);
  }, 60_000);
});
