import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RenderTimeoutError } from '../../src/errors/index.js';
import { SPARE_LANES } from '../../src/report/browser-slot.js';
import { PdfRenderer } from '../../src/report/pdf.js';
import { renderSnapshot } from '../../src/report/render.js';
import { fixtureSnapshot } from './fixtures.js';
import { pdfText, pdfTextOf } from './helpers.js';

let dir: string;
let server: Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-pdf-pool-'));
  // Anything Chromium fetches would land here: every test expects it to stay empty.
  server = createServer((request, response) => {
    hits.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/plain' }).end('fetched');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** A page that, if scripts ran or requests left, would say so in its own text or in `hits`. */
function hostilePage(name: string): string {
  return `<!doctype html><html><head>
    <link rel="stylesheet" href="${base}/${name}/a.css"><script src="${base}/${name}/s.js"></script>
    <style>body { background: url("${base}/${name}/bg.png"); }</style></head>
    <body><p>${name} body</p><noscript>${name} noscript shown</noscript>
    <script>document.body.textContent = 'SCRIPT RAN'; fetch('${base}/${name}/fetch');</script>
    <img src="${base}/${name}/img.png"><iframe src="${base}/${name}/frame.html"></iframe></body></html>`;
}

describe('PdfRenderer with concurrency', () => {
  it('renders hostile documents in parallel with no request leaving Chromium and no script running', async () => {
    const renderer = new PdfRenderer({ concurrency: 2 });
    try {
      const brand = (name: string) =>
        `<img src="${base}/${name}.png"><script>document.title='pwned'</script>${name}`;
      // Two hostile snapshots through the whole report path, and two hostile raw pages, all at once.
      const [reportA, reportB, pageA, pageB] = await Promise.all([
        renderSnapshot(fixtureSnapshot({ brand: brand('Alpha') }), [], {
          formats: ['pdf'],
          outDir: join(dir, 'a'),
          renderer,
        }),
        renderSnapshot(fixtureSnapshot({ brand: brand('Beta') }), [], {
          formats: ['pdf'],
          outDir: join(dir, 'b'),
          renderer,
        }),
        renderer.render(hostilePage('alpha')),
        renderer.render(hostilePage('beta')),
      ]);
      expect(pdfText(reportA[0]!)).toContain(`<script>document.title='pwned'</script>Alpha`);
      expect(pdfText(reportB[0]!)).toContain(`<script>document.title='pwned'</script>Beta`);
      for (const [name, bytes] of [
        ['alpha', pageA],
        ['beta', pageB],
      ] as const) {
        const text = pdfTextOf(bytes, dir);
        expect(text).toContain(`${name} body`);
        // <noscript> content shows only when scripting is off; a script would have replaced the body.
        expect(text).toContain(`${name} noscript shown`);
        expect(text).not.toContain('SCRIPT RAN');
      }
      expect(hits).toEqual([]);
      // Two pages printed at once, each in a context of its own.
      expect(renderer.contexts).toBeGreaterThanOrEqual(2);
    } finally {
      await renderer.close();
    }
  });

  it('fails a render that hangs alone at its deadline while its neighbour completes', async () => {
    const renderer = new PdfRenderer({ concurrency: 2, renderTimeoutMs: 5_000 });
    try {
      // (Each render waits for the page before it to be cleared: one page, no spare opened beside it.)
      await renderer.render('<p>warm</p>');
      await new Promise((resolve) => setTimeout(resolve, 400));
      // Hundreds of thousands of table rows: far more than Chromium can lay out and print in 5 s.
      const endless = `<table>${'<tr><td>row</td><td>cell</td></tr>'.repeat(400_000)}</table>`;
      const hung = renderer.render(endless);
      const neighbour = renderer.render('<p>the neighbour report</p>');
      const [hungResult, neighbourResult] = await Promise.allSettled([hung, neighbour]);
      expect(hungResult.status).toBe('rejected');
      expect((hungResult as PromiseRejectedResult).reason).toBeInstanceOf(RenderTimeoutError);
      expect(neighbourResult.status).toBe('fulfilled');
      expect(pdfTextOf((neighbourResult as PromiseFulfilledResult<Buffer>).value, dir)).toContain(
        'the neighbour report',
      );
      // The browser that hung is not trusted again: the next render gets a fresh one.
      expect(pdfTextOf(await renderer.render('<p>after</p>'), dir)).toContain('after');
      expect(renderer.launches).toBe(2);
    } finally {
      await renderer.close();
    }
  });

  it('reuses one page for document after document instead of a context per document, showing nothing of the last', async () => {
    const renderer = new PdfRenderer({ concurrency: 1 });
    try {
      const names = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth'];
      const texts: string[] = [];
      for (const name of names) {
        texts.push(pdfTextOf(await renderer.render(`<p>${name} document</p>`), dir));
      }
      texts.forEach((text, i) => {
        expect(text).toContain(`${names[i]} document`);
        for (const other of names.filter((_, j) => j !== i)) expect(text).not.toContain(other);
      });
      // Six documents back to back on one page: each replaces the last, no second page is opened.
      expect(renderer.contexts).toBe(1);
      expect(renderer.launches).toBe(1);
    } finally {
      await renderer.close();
    }
  });

  // A refresh that would blank the page two seconds later, in the middle of the next document; the
  // second way is upper case and unquoted (attribute names are case-insensitive, so the check must be).
  it.each([
    ['lower case, quoted', '<meta http-equiv="refresh" content="2;url=about:blank">'],
    ['upper case, unquoted', '<META HTTP-EQUIV=Refresh CONTENT="2;url=about:blank">'],
  ])(
    'lets no refresh a document scheduled (%s) reach the next one on its page',
    async (_, tag) => {
      const renderer = new PdfRenderer({ concurrency: 1 });
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      // A refresh left behind only blanks a document it catches while loading (once printing has begun,
      // Chromium finishes the print first), so the next document starts shortly before the refresh
      // comes due and is slow to load, quick to print: 150,000 hidden paragraphs keep `setContent`
      // busy for most of a second and leave one page to print.
      const long = `<p>the next report</p><div hidden>${'<p>a long table of figures</p>'.repeat(150_000)}</div>`;
      try {
        // A first print in a new browser can take a second; the refresh must not come due during it.
        await renderer.render('<p>warm</p>');
        // Twice, since the timing is the machine's. Each pause lets the one page be cleared, so the
        // next render takes that page (no spare is opened): the long document starts on the page the
        // refresh was scheduled on, 1.6 s after it was.
        for (let attempt = 0; attempt < 2; attempt++) {
          await pause(400);
          await renderer.render(`${tag}<p>first</p>`);
          await pause(1_600);
          expect(pdfTextOf(await renderer.render(long), dir)).toContain('the next report');
        }
      } finally {
        await renderer.close();
      }
    },
    120_000,
  );

  it('keeps at most `concurrency` pages printing, queueing the rest', async () => {
    const renderer = new PdfRenderer({ concurrency: 2 });
    try {
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => renderer.render(`<p>queued report ${i}</p>`)),
      );
      results.forEach((bytes, i) => {
        expect(pdfTextOf(bytes, dir)).toContain(`queued report ${i}`);
      });
      // Six documents, never more than two printing at once: two browsers, each with at most a page
      // printing and one being cleared.
      expect(renderer.launches).toBe(2);
      expect(renderer.contexts).toBeLessThanOrEqual(2 * SPARE_LANES);
    } finally {
      await renderer.close();
    }
  });
});
