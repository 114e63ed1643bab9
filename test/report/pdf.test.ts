import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RendererClosedError } from '../../src/errors/index.js';
import { renderReportHtml } from '../../src/report/html.js';
import { buildReportModel } from '../../src/report/model/index.js';
import { withoutScreenLayout } from '../../src/report/page-lane.js';
import { PdfRenderer } from '../../src/report/pdf.js';
import { renderSnapshot } from '../../src/report/render.js';
import { loadReportTemplates } from '../../src/report/templates.js';
import { gatedChromium } from '../helpers/gated-chromium.js';
import { fixturePayloads, fixtureSnapshot } from './fixtures.js';
import { pdfText, pdfTextOf } from './helpers.js';

const meta = { generatedAt: new Date('2026-11-16T06:00:00Z'), version: '0.1.0' };
let dir: string;
let renderer: PdfRenderer;
let server: Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-pdf-'));
  renderer = new PdfRenderer({ recycleAfter: 50 });
  // Anything Chromium fetches would land here: the tests expect it to stay empty.
  server = createServer((request, response) => {
    hits.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'image/png' }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await renderer.close();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('PDF report', () => {
  it('shows brand, set, run, a known KPI and every section to a PDF text reader', async () => {
    const [file] = await renderSnapshot(fixtureSnapshot(), [], {
      formats: ['pdf'],
      outDir: dir,
      renderer,
      generatedAt: meta.generatedAt,
    });
    const text = pdfText(file!);
    for (const expected of [
      'Northwind Coffee',
      'Coffee buyers — DACH',
      'W46 2026',
      // The default locale, en-US, writes the run date the American way.
      'November 16, 2026',
      'ChatGPT',
      '43.7%', // presence.gross current, percent points
      '23.4%', // competitive share, a fraction in the payload
      'Subscription price', // error register: title, correct text and the wrong claim
      'Northwind has no subscription offer.',
      'Page 2 of',
    ]) {
      expect(text).toContain(expected);
    }
    for (const section of ['Overview', 'Presence', 'Life', 'Gravity', 'Scout', 'Market']) {
      expect(text).toMatch(new RegExp(`\\d ${section} `));
    }
    expect(text).not.toContain('Data unavailable');
    // A change is written with its unit; a judged one with its interval as it is, never "± half".
    expect(text).toMatch(/\+2\.1 pts/);
    expect(text).not.toMatch(/± \d/);
  });

  it('makes no network request and shows hostile API strings as text', async () => {
    const payloads = fixturePayloads() as Record<string, Record<string, unknown>>;
    const hostile = `<script>document.title='pwned'</script><img src="${base}/summary.png">`;
    const snapshot = fixtureSnapshot({
      brand: `<img src="${base}/brand.png">Acme`,
      payloads: {
        'overview.summary': { data: { content: hostile }, error: null },
        'overview.competitive-context': {
          data: {
            ...payloads['overview.competitive-context'],
            shares: [{ name: `<img src="${base}/share.png">`, share: 0.5, isBrand: true, isTargeted: true }],
          },
          error: null,
        },
        'scout.source-landscape': {
          data: {
            ...payloads['scout.source-landscape'],
            sourcesDetail: [
              {
                name: `<link rel="stylesheet" href="${base}/x.css">`,
                citations: 3,
                engines: 1,
                control: 'x',
                sourceType: 'y',
                delta: 0,
              },
            ],
          },
          error: null,
        },
      },
    });
    // Engine images in every payload point at the counting server too: they must never be loaded.
    for (const payload of Object.values(snapshot.payloads)) {
      for (const engine of ((payload.data as { engines?: unknown[] }).engines ?? []) as {
        image?: string;
      }[]) {
        if (typeof engine === 'object' && engine.image) engine.image = `${base}/engine.png`;
      }
    }
    const doc = renderReportHtml(buildReportModel(snapshot, [], meta), loadReportTemplates());
    expect(doc.html).not.toMatch(/<script|<img|<link /i);
    expect(doc.headerTemplate).not.toMatch(/<img/i);
    const text = pdfTextOf(await renderer.render(doc.html, doc), dir);
    expect(hits).toEqual([]);
    expect(text).toContain(`<script>document.title='pwned'</script>`);
    expect(text).toContain(`<img src="${base}/summary.png">`);
  });

  it('blocks every request at the browser too, whatever the HTML asks for', async () => {
    const html = `<!doctype html><html><head><link rel="stylesheet" href="${base}/a.css">
      <style>@import url("${base}/b.css"); body { background: url("${base}/c.png"); }
      @font-face { font-family: x; src: url("${base}/d.woff"); } p { font-family: x; }</style></head>
      <body><p>inline</p><img src="${base}/e.png"><iframe src="${base}/f.html"></iframe>
      <script>fetch("${base}/g")</script><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
      <object data="${base}/h.pdf"></object><video poster="${base}/i.png"></video></body></html>`;
    const text = pdfTextOf(await renderer.render(html), dir);
    expect(text).toContain('inline');
    expect(hits).toEqual([]);
  });

  it('prints the document as it is on paper, though Chromium never lays it out for the screen', async () => {
    // A template's own web font (as data:, the only URL a report may load) and its print and screen
    // styles: the renderer hides the document on screen (withoutScreenLayout), so this is what shows
    // that the print still loads the font and applies print styles, not screen ones.
    const font = readFileSync('/usr/share/fonts/truetype/dejavu/DejaVuSerif-Italic.ttf').toString('base64');
    const html = `<!doctype html><html><HEAD lang="en"><style>
      @font-face { font-family: brand; src: url(data:font/ttf;base64,${font}); }
      h1 { font-family: brand, monospace; }
      @media screen { .paper { display: none; } }
      @media print { .screen { display: none; } }
      </style></HEAD><body><h1>Acme quarterly</h1><p class="paper">only on paper</p>
      <p class="screen">only on screen</p></body></html>`;
    expect(withoutScreenLayout(html)).toMatch(/^<!doctype html><html><HEAD lang="en"><style media="screen">/);
    const pdf = await renderer.render(html);
    const text = pdfTextOf(pdf, dir);
    expect(text).toContain('Acme quarterly');
    expect(text).toContain('only on paper');
    expect(text).not.toContain('only on screen');
    expect(pdf.includes('DejaVuSerif-Italic')).toBe(true); // the web font is embedded, not a fallback
    // A document without a head is printed as it is.
    expect(withoutScreenLayout('<p>bare</p>')).toBe('<p>bare</p>');
  });

  it('puts a "data unavailable" note where a missing payload would be', async () => {
    const [file] = await renderSnapshot(
      fixtureSnapshot({
        payloads: {
          'life.stance-mix': undefined,
          'gravity.open-errors': { data: null, error: 'stored invalid' },
        },
      }),
      [],
      { formats: ['pdf'], outDir: dir, renderer },
    );
    const text = pdfText(file!);
    expect(text).toContain('Data unavailable — Stance mix: not in this snapshot');
    expect(text).toContain('Data unavailable — Open errors: stored invalid');
    expect(text).toContain('43.7%');
  });

  it('uses templates from templates.dir, falling back to the packaged ones per file', async () => {
    const custom = join(dir, 'my-templates');
    mkdirSync(join(custom, 'report'), { recursive: true });
    writeFileSync(
      join(custom, 'report', 'footer.hbs'),
      '<div style="font-size:8px; margin: 0 14mm">ACME CONFIDENTIAL — {{cover.brand}} — <span class="pageNumber"></span></div>',
    );
    const [file] = await renderSnapshot(fixtureSnapshot(), [], {
      formats: ['pdf'],
      outDir: join(dir, 'custom'),
      renderer,
      templatesDir: custom,
    });
    const text = pdfText(file!);
    expect(text).toContain('ACME CONFIDENTIAL — Northwind Coffee');
    expect(text).toContain('43.7%');
  });
});

describe('PdfRenderer lifecycle', () => {
  it('recycles the browser after N renders, and close() is one idempotent promise', async () => {
    const small = new PdfRenderer({ recycleAfter: 2 });
    const html = '<p>hello</p>';
    for (let i = 0; i < 3; i++) await small.render(html);
    expect(small.launches).toBe(2);
    const first = small.close();
    expect(small.close()).toBe(first);
    await first;
    await expect(small.render(html)).rejects.toBeInstanceOf(RendererClosedError);
  });

  /** Processes of a browser's process group still running (a killed helper waits for init as a zombie). */
  const running = (group: number) =>
    readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map((name) => {
        try {
          const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
          return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        } catch {
          return []; // gone meanwhile
        }
      })
      .filter((fields) => Number(fields[2]) === group && fields[0] !== 'Z');

  for (const killOnClose of [false, true]) {
    it(`leaves no Chromium process and no temporary profile behind once closed (killOnClose ${killOnClose})`, async () => {
      const closing = new PdfRenderer({ killOnClose });
      await closing.render('<p>one</p>');
      const browser = await (
        closing as unknown as { slots: { browser: Promise<import('puppeteer-core').Browser> }[] }
      ).slots[0]!.browser;
      const pid = browser.process()!.pid!;
      const profile = /--user-data-dir=(\S+)/.exec(browser.process()!.spawnargs.join(' '))?.[1];
      expect(profile && existsSync(profile)).toBe(true);
      expect(running(pid).length).toBeGreaterThan(1); // the browser and its helpers
      await closing.close();
      // The whole process group: the browser and its renderer and helper processes.
      await expect.poll(() => running(pid).length, { timeout: 5_000 }).toBe(0);
      expect(existsSync(profile!)).toBe(false);
    });
  }

  it('close() ends a browser still starting: the render waiting for it fails, no process is left', async () => {
    // Chromium held before it starts (as a slow or wedged start): close() used to wait for puppeteer
    // to give up on the launch (the protocol timeout, then as long for its Browser.close), so a
    // `deliver` stopped by Ctrl+C then hung for minutes.
    const gate = gatedChromium(dir);
    gate.hold();
    const starting = new PdfRenderer({ executablePath: gate.path });
    const render = starting.render('<p>never</p>');
    render.catch(() => undefined);
    const launched = () =>
      readdirSync('/proc').filter((name) => {
        try {
          return /^\d+$/.test(name) && readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(gate.path);
        } catch {
          return false; // gone meanwhile
        }
      });
    await expect.poll(launched, { timeout: 20_000 }).not.toEqual([]);
    await starting.close();
    await expect(render).rejects.toThrow();
    await expect.poll(launched, { timeout: 5_000 }).toEqual([]);
  });

  it('tags every PDF (screen readers) and gives it bookmarks from its headings', async () => {
    const plain = await renderer.render('<h1>Set</h1><h2>Section</h2><p>text</p>');
    expect(plain.includes('/StructTreeRoot')).toBe(true);
    expect(plain.includes('/Outlines')).toBe(true);
  });

  it('relaunches after the browser dies under it', async () => {
    const fragile = new PdfRenderer();
    try {
      await fragile.render('<p>one</p>');
      // Simulate a crash: kill the browser process behind puppeteer's back.
      const browser = await (
        fragile as unknown as { slots: { browser: Promise<import('puppeteer-core').Browser> }[] }
      ).slots[0]!.browser;
      browser.process()?.kill('SIGKILL');
      await new Promise((resolve) => browser.once('disconnected', resolve));
      const text = pdfTextOf(await fragile.render('<p>two</p>'), dir);
      expect(text).toContain('two');
      expect(fragile.launches).toBe(2);
    } finally {
      await fragile.close();
    }
  });
});
