/**
 * `npm run bench:render`: what reportd's PDF path costs on top of Chromium itself.
 *
 * - warm render: `PdfRenderer.render` (fresh context, JS off, request interception, deadline) of the
 *   full report, browser already running and its work between renders done (`idle()`), as in the
 *   daemon, where a report's workbook and email come between two renders; back-to-back renders,
 *   which also pay for the next fresh context, are shown for information;
 * - bare: the same HTML through one reused puppeteer page, `setContent` + `page.pdf` with the same
 *   PDF options, nothing else. Samples alternate with the warm ones so that machine noise weighs on
 *   both alike. Target: warm / bare ≤ 1.5;
 * - workbook: `renderWorkbook` of the same snapshot;
 * - memory: RSS of this process after 50 full renders (model → charts → HTML → PDF), target growth
 *   < 50 MB. Chromium's own RSS is shown for information.
 *
 * First line: the ratios; then details.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import puppeteer from 'puppeteer';
import { CHROMIUM_ARGS, findChromium } from '../src/report/chromium.js';
import { renderReportHtml } from '../src/report/html.js';
import { buildReportModel } from '../src/report/model/index.js';
import { PdfRenderer } from '../src/report/pdf.js';
import { loadReportTemplates } from '../src/report/templates.js';
import { renderWorkbook } from '../src/report/xlsx.js';
import { fixtureSnapshot } from '../test/report/fixtures.js';

// A real collection before each memory reading, so RSS shows retained memory, not garbage not yet swept.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const WARMUP = 3;
const SAMPLES = 15;
const MEMORY_RENDERS = 50;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const mb = (bytes: number) => bytes / 1024 / 1024;

async function time(fn: () => Promise<unknown>, samples = SAMPLES, warmup = WARMUP): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

/**
 * A process's proportional set size: its private memory plus its share of pages mapped by several
 * processes. Chromium's processes share most of their libraries, so summing RSS would count those
 * once per process and overstate the tree several times over.
 */
function proportionalSetSize(pid: string): number {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
}

/** Memory (PSS) of a process and all its descendants (Chromium is a tree of processes), from /proc. */
function treeRss(pid: number | undefined): number {
  if (pid === undefined) return 0;
  let total = 0;
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const entry of processTable()) {
    children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry.pid]);
    rss.set(entry.pid, entry.rss);
  }
  const stack = [pid];
  while (stack.length) {
    const next = stack.pop()!;
    total += rss.get(next) ?? 0;
    stack.push(...(children.get(next) ?? []));
  }
  return total;
}

function processTable(): { pid: number; ppid: number; rss: number }[] {
  const out: { pid: number; ppid: number; rss: number }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ pid: Number(name), ppid: Number(fields[1]), rss: proportionalSetSize(name) });
    } catch {
      // gone
    }
  }
  return out;
}

const snapshot = fixtureSnapshot();
const meta = { generatedAt: new Date(), version: 'bench' };
const templates = loadReportTemplates();
const doc = renderReportHtml(buildReportModel(snapshot, [], meta), templates);
const pdfOptions = {
  format: 'A4' as const,
  printBackground: true,
  displayHeaderFooter: true,
  headerTemplate: doc.headerTemplate,
  footerTemplate: doc.footerTemplate,
  margin: { top: '16mm', bottom: '14mm', left: '14mm', right: '14mm' },
};

// Bare Chromium: one page, reused, nothing between setContent and page.pdf.
const executablePath = findChromium();
const bareBrowser = await puppeteer.launch({
  executablePath,
  headless: true,
  pipe: true,
  args: [...CHROMIUM_ARGS],
});
const page = await bareBrowser.newPage();
const bare = async () => {
  await page.setContent(doc.html, { waitUntil: 'load' });
  await page.pdf(pdfOptions);
};
const renderer = new PdfRenderer({ executablePath, recycleAfter: 1000 });
const warm = () => renderer.render(doc.html, doc);
// Interleaved, so that whatever else the machine does in the meantime weighs on both sides alike.
for (let i = 0; i < WARMUP; i++) {
  await bare();
  await warm();
}
const bareTimes: number[] = [];
const warmTimes: number[] = [];
for (let i = 0; i < SAMPLES; i++) {
  await renderer.idle();
  bareTimes.push(await time(bare, 1, 0));
  await renderer.idle();
  warmTimes.push(await time(warm, 1, 0));
}
const bareMs = median(bareTimes);
const warmMs = median(warmTimes);
await bareBrowser.close();
// Back to back, each render also pays for preparing the next one's fresh context: for information.
const burstMs = await time(warm);
await renderer.close();

const htmlMs = await time(
  async () => renderReportHtml(buildReportModel(snapshot, [], meta), templates),
  SAMPLES,
  1,
);
const workbookMs = await time(
  () => renderWorkbook(snapshot as never, [], { ...meta, account: snapshot.account }),
  5,
  1,
);

// Memory: the daemon's loop, with the production recycle setting.
const daemonRenderer = new PdfRenderer({ executablePath, recycleAfter: 50 });
for (let i = 0; i < WARMUP; i++) {
  const d = renderReportHtml(buildReportModel(snapshot, [], meta), templates);
  await daemonRenderer.render(d.html, d);
}
gc();
const rssBefore = process.memoryUsage().rss;
const heapBefore = process.memoryUsage().heapUsed;
let browserRss = 0;
const loopStart = performance.now();
for (let i = 0; i < MEMORY_RENDERS; i++) {
  const d = renderReportHtml(buildReportModel(snapshot, [], meta), templates);
  await daemonRenderer.render(d.html, d);
  if (i === MEMORY_RENDERS - 2) {
    const slot = (
      daemonRenderer as unknown as { slot: { browser: Promise<import('puppeteer').Browser> } | null }
    ).slot;
    browserRss = slot ? treeRss((await slot.browser).process()?.pid) : 0;
  }
}
const loopMs = (performance.now() - loopStart) / MEMORY_RENDERS;
gc();
const rssAfter = process.memoryUsage().rss;
const heapAfter = process.memoryUsage().heapUsed;
await daemonRenderer.close();

const ratio = warmMs / bareMs;
const growth = mb(rssAfter - rssBefore);
console.log(
  `render: warm/bare ${ratio.toFixed(2)} (target ≤ 1.5) · workbook ${workbookMs.toFixed(0)} ms · RSS +${growth.toFixed(1)} MB after ${MEMORY_RENDERS} renders (target < 50 MB)`,
);
console.log(`  bare page.pdf          ${bareMs.toFixed(0)} ms (median of ${SAMPLES})`);
console.log(`  warm PdfRenderer       ${warmMs.toFixed(0)} ms (median of ${SAMPLES})`);
console.log(
  `  back to back           ${burstMs.toFixed(0)} ms per render (no pause: ${(burstMs / bareMs).toFixed(2)}× bare)`,
);
console.log(`  model + charts + HTML  ${htmlMs.toFixed(0)} ms`);
console.log(`  full render in loop    ${loopMs.toFixed(0)} ms per report`);
console.log(`  workbook               ${workbookMs.toFixed(0)} ms (median of 5)`);
console.log(`  node RSS               ${mb(rssBefore).toFixed(0)} → ${mb(rssAfter).toFixed(0)} MB`);
// The JS heap after a full collection: what a leak in reportd's own code would grow.
console.log(`  node heap used         ${mb(heapBefore).toFixed(0)} → ${mb(heapAfter).toFixed(0)} MB`);
console.log(`  chromium tree PSS      ${mb(browserRss).toFixed(0)} MB (before its recycle at 50)`);
console.log(`  html size              ${(doc.html.length / 1024).toFixed(0)} KiB`);
if (ratio > 1.5 || growth >= 50) process.exitCode = 1;
