/**
 * The figure `reportd render --set all --run all` is judged by (issue 41): what each extra report
 * costs against a bare `page.pdf` of the same HTML with PDF/UA on (tagged), like with like:
 *
 * - bare: a batch of the same 20 HTMLs printed with `setContent` + `page.pdf` (the renderer's print
 *   options) and nothing else, at the concurrency `render` uses (`chromium.concurrency`, default the
 *   cores up to 4), each concurrent print in a browser of its own launched as the renderer launches
 *   its browsers (same binary, flags and mode);
 * - reportd: `renderBatch` of 20 reports (model → charts → HTML → PDF → PDF/UA finishing → file) at
 *   that same concurrency, every browser warm;
 * - in interleaved rounds (bare, this tree, the baseline; the order turned round every other round),
 *   the ratio of wall time per report taken round by round, and its median.
 *
 * REPORTD_BENCH_BASELINE=<another checkout of reportd> adds that checkout's renderer and batch (its
 * `src/`, loaded through tsx) to every round: before and after, side by side on one machine. Several
 * checkouts, separated by `:` (as in PATH), are each a column of their own, named by their folder.
 */
import { loadavg } from 'node:os';
import { basename, delimiter, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PDFOptions } from 'puppeteer-core';
import type { BatchItem, renderBatch } from '../src/report/batch.js';
import { launchBrowser } from '../src/report/browser-slot.js';
import type { PdfRenderer } from '../src/report/pdf.js';

/** A version of the PDF path: this tree's, or a baseline checkout's. */
export interface RenderPath {
  name: string;
  PdfRenderer: typeof PdfRenderer;
  renderBatch: typeof renderBatch;
}

/** The baseline checkouts named by REPORTD_BENCH_BASELINE, if any, in the order given. */
export async function baselinePaths(): Promise<RenderPath[]> {
  const dirs = (process.env.REPORTD_BENCH_BASELINE ?? '').split(delimiter).filter(Boolean);
  return Promise.all(
    dirs.map(async (dir) => {
      const load = (file: string) => import(pathToFileURL(join(resolve(dir), 'src', 'report', file)).href);
      const [pdf, batch] = await Promise.all([load('pdf.ts'), load('batch.ts')]);
      const name = dirs.length === 1 ? 'baseline' : basename(resolve(dir));
      return { name, PdfRenderer: pdf.PdfRenderer, renderBatch: batch.renderBatch };
    }),
  );
}

export interface ExtraReportSetup {
  executablePath: string;
  /** The report's HTML as the batch builds it (all 20 items are the same snapshot), with its header and footer. */
  doc: { html: string; headerTemplate?: string; footerTemplate?: string };
  pdfOptions: PDFOptions;
  items: BatchItem[];
  concurrency: number;
  rounds: number;
  outDir: string;
  paths: RenderPath[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Runs `count` tasks, `concurrency` at a time, worker `w` given its own index. */
async function pool(count: number, concurrency: number, task: (worker: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (next++ < count) await task(worker);
    }),
  );
}

/** The rounds, then the lines that say them: per round the wall time per report of each, and ratios. */
export async function extraReportRounds(setup: ExtraReportSetup): Promise<string[]> {
  const { concurrency, items } = setup;
  const browsers = await Promise.all(
    Array.from({ length: concurrency }, () =>
      launchBrowser({
        executablePath: setup.executablePath,
        handleSignals: true,
        protocolTimeoutMs: 180_000,
      }),
    ),
  );
  const pages = await Promise.all(browsers.map((browser) => browser.newPage()));
  const print = async (worker: number) => {
    await pages[worker]!.setContent(setup.doc.html, { waitUntil: 'load' });
    await pages[worker]!.pdf(setup.pdfOptions);
  };
  await pool(concurrency * 2, concurrency, print); // every bare page warm
  const bareBatch = async () => {
    const start = performance.now();
    await pool(items.length, concurrency, print);
    return (performance.now() - start) / items.length;
  };
  const reportBatch = async (path: RenderPath, round: number) => {
    const renderer = new path.PdfRenderer({
      executablePath: setup.executablePath,
      recycleAfter: 1000,
      concurrency,
    });
    try {
      // Every browser and its first page up, as in `render` once the first report is printing.
      await Promise.all(
        Array.from({ length: concurrency }, () => renderer.render(setup.doc.html, setup.doc)),
      );
      await renderer.idle();
      const start = performance.now();
      const outDir = join(setup.outDir, `${path.name}-${round}`);
      const results = await path.renderBatch(
        items,
        { formats: ['pdf'], outDir, renderer, concurrency },
        () => {},
      );
      if (results.some((r) => r.error)) throw new Error(`a ${path.name} batch render failed`);
      return (performance.now() - start) / items.length;
    } finally {
      await renderer.close();
    }
  };
  const readings: Record<string, number>[] = [];
  try {
    for (let round = 0; round < setup.rounds; round++) {
      const order = ['bare', ...setup.paths.map((p) => p.name)];
      const reading: Record<string, number> = {};
      for (const name of round % 2 === 0 ? order : order.reverse()) {
        const path = setup.paths.find((p) => p.name === name);
        reading[name] = path ? await reportBatch(path, round) : await bareBatch();
      }
      readings.push(reading);
    }
  } finally {
    await Promise.all(browsers.map((browser) => browser.close()));
  }
  return lines(readings, setup);
}

function lines(readings: Record<string, number>[], setup: ExtraReportSetup): string[] {
  const names = setup.paths.map((p) => p.name);
  const ratio = (reading: Record<string, number>, name: string) => reading[name]! / reading.bare!;
  const out = names.map(
    (name) =>
      `  each extra report (${name}) vs a bare tagged page.pdf batch, both 20 at conc. ${setup.concurrency}: ${median(readings.map((r) => ratio(r, name))).toFixed(2)}× (median of ${readings.length} rounds; goal ≤ 1.0×)`,
  );
  out.push(`    round  bare ms/report  ${names.map((n) => `${n} ms/report  ratio`).join('  ')}`);
  readings.forEach((reading, round) => {
    const cells = names.map(
      (n) => `${reading[n]!.toFixed(0).padStart(n.length + 10)}  ${ratio(reading, n).toFixed(2)}×`,
    );
    out.push(
      `    ${String(round + 1).padEnd(5)}  ${reading.bare!.toFixed(0).padStart(14)}  ${cells.join('  ')}`,
    );
  });
  out.push(
    `    load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  return out;
}
