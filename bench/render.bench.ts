/**
 * `npm run bench:render`: what reportd's PDF path costs on top of Chromium itself, and how many
 * reports per minute it turns out. Every PDF figure is also given as a ratio to bare `page.pdf` of the
 * same HTML, measured in the same run (machine noise weighs on both alike):
 *
 * - bare: one reused puppeteer page, `setContent` + `page.pdf` with the renderer's print options
 *   (tagged, as every report is printed), nothing else;
 * - warm single: `PdfRenderer.render` (isolated context, JS off, request interception, deadline) with
 *   its work between renders done (`idle()`), as in a daemon where workbook and email come between;
 * - back to back: renders with no pause, each also paying for clearing the last page;
 * - each extra report of `render --set all --run all` against a batch of bare tagged prints of the
 *   same HTML at the same concurrency, round by round (extra-report.ts; REPORTD_BENCH_BASELINE adds
 *   other checkouts, REPORTD_BENCH_ROUNDS sets the rounds, 5, REPORTD_BENCH_EXTRA_ONLY=1 runs only this);
 * - batch of 20: `renderBatch` (model → charts → HTML → PDF, files written) at concurrency 1 and at
 *   the default (cores, at most 4), as reports per minute, each renderer warm (as many documents
 *   printed at once as it has browsers before the clock starts, as in a daemon past its first batch;
 *   three interleaved rounds, the median of each);
 * - the HTML step (model + charts + HTML) in ms;
 * - cold `reportd render` of one report as a process (built CLI, fresh store);
 * - idle daemon RSS: a real `reportd daemon` process with reports configured, before any render
 *   (Chromium closed);
 * - memory: RSS of this process after 50 full renders, target growth < 50 MB.
 *
 * First line: the ratios and goals; then details. Needs `npm run build` (the CLI figures use dist/).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type BatchItem, renderBatch } from '../src/report/batch.js';
import { launchBrowser } from '../src/report/browser-slot.js';
import { findChromium } from '../src/report/chromium.js';
import { renderReportHtml } from '../src/report/html.js';
import { buildReportModel } from '../src/report/model/index.js';
import { PdfRenderer } from '../src/report/pdf.js';
import { reportTemplatesFor } from '../src/report/templates.js';
import { renderWorkbook } from '../src/report/xlsx.js';
import { fixtureSnapshot } from '../test/report/fixtures.js';
import { seedStore } from '../test/report/helpers.js';
import { baselinePaths, extraReportRounds } from './extra-report.js';

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

/** CPU time (user + system, ms) of a process and all its live descendants, from /proc. */
function treeCpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const table = processTable({ memory: false });
  const children = new Map<number, number[]>();
  for (const entry of table) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry.pid]);
  const cpu = new Map(table.map((entry) => [entry.pid, entry.cpuMs]));
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const next = stack.pop()!;
    total += cpu.get(next) ?? 0;
    stack.push(...(children.get(next) ?? []));
  }
  return total;
}

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

function processTable({ memory = true } = {}): { pid: number; ppid: number; rss: number; cpuMs: number }[] {
  const out: { pid: number; ppid: number; rss: number; cpuMs: number }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({
        pid: Number(name),
        ppid: Number(fields[1]),
        rss: memory ? proportionalSetSize(name) : 0,
        cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND,
      });
    } catch {
      // gone
    }
  }
  return out;
}

const snapshot = fixtureSnapshot();
const meta = { generatedAt: new Date(), version: 'bench' };
const templates = reportTemplatesFor();
const doc = renderReportHtml(buildReportModel(snapshot, [], meta), templates);
const pdfOptions = {
  format: 'A4' as const,
  printBackground: true,
  displayHeaderFooter: true,
  headerTemplate: doc.headerTemplate,
  footerTemplate: doc.footerTemplate,
  margin: { top: '16mm', bottom: '14mm', left: '14mm', right: '14mm' },
  // As PdfRenderer prints every report.
  tagged: true,
};

// Bare Chromium: one page, reused, nothing between setContent and page.pdf.
const executablePath = findChromium();
// Launched as the renderer launches its browsers (same binary, mode and flags).
const bareBrowser = await launchBrowser({ executablePath, handleSignals: true, protocolTimeoutMs: 180_000 });
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
// Back to back: no pause between renders.
const burstMs = await time(warm);
await renderer.close();

// A batch of 20 reports, the whole path (HTML step, PDF, file), at concurrency 1 and the default
// (what `render` uses when chromium.concurrency is not set: renderConcurrency).
const defaultConcurrency = Math.max(1, Math.min(4, availableParallelism()));
const work = mkdtempSync(join(tmpdir(), 'reportd-bench-'));
const batchItems: BatchItem[] = Array.from({ length: 20 }, (_, i) => ({
  snapshot: snapshot as never,
  history: [],
  baseName: `report-${i}`,
}));
const extraLines = await extraReportRounds({
  executablePath,
  doc,
  pdfOptions,
  items: batchItems,
  concurrency: defaultConcurrency,
  rounds: Number(process.env.REPORTD_BENCH_ROUNDS ?? 5),
  outDir: join(work, 'extra'),
  paths: [{ name: 'this tree', PdfRenderer, renderBatch }, ...(await baselinePaths())],
});
console.log(extraLines.join('\n'));
if (process.env.REPORTD_BENCH_EXTRA_ONLY === '1') {
  rmSync(work, { recursive: true, force: true });
  process.exit(0);
}
/** CPU a batch's report cost, all processes together: the Chromium trees and this process. */
const batchCpu = new Map<number, { chromiumMs: number; nodeMs: number }[]>();
async function chromiumCpuMs(renderer: PdfRenderer): Promise<number> {
  const { slots } = renderer as unknown as {
    slots: { browser: Promise<import('puppeteer-core').Browser> }[];
  };
  let total = 0;
  for (const slot of slots) total += treeCpuMs((await slot.browser).process()?.pid);
  return total;
}
async function batchMs(concurrency: number): Promise<number> {
  const batchRenderer = new PdfRenderer({ executablePath, recycleAfter: 1000, concurrency });
  try {
    // Every browser and its first page up, as in a warm daemon.
    await Promise.all(Array.from({ length: concurrency }, () => batchRenderer.render(doc.html, doc)));
    await batchRenderer.idle();
    const chromiumBefore = await chromiumCpuMs(batchRenderer);
    const nodeBefore = process.cpuUsage();
    const start = performance.now();
    const results = await renderBatch(
      batchItems,
      { formats: ['pdf'], outDir: join(work, `batch-${concurrency}`), renderer: batchRenderer, concurrency },
      () => {},
    );
    const elapsed = performance.now() - start;
    await batchRenderer.idle();
    const node = process.cpuUsage(nodeBefore);
    const cpu = {
      chromiumMs: ((await chromiumCpuMs(batchRenderer)) - chromiumBefore) / 20,
      nodeMs: (node.user + node.system) / 1000 / 20,
    };
    batchCpu.set(concurrency, [...(batchCpu.get(concurrency) ?? []), cpu]);
    if (results.some((r) => r.error)) throw new Error('a batch render failed');
    return elapsed;
  } finally {
    await batchRenderer.close();
  }
}
/** Busy and total CPU time of the whole machine so far (/proc/stat's first line, in clock ticks). */
function machineCpu(): { busy: number; total: number } {
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((sum, value) => sum + value, 0);
  return { busy: total - ticks[3]! - ticks[4]!, total }; // idle and iowait are not busy
}
// Interleaved rounds, median per concurrency: a batch takes 2–4 s, short enough for one burst of
// someone else's work to swing a single reading by a tenth.
const BATCH_ROUNDS = 3;
const batchRuns = new Map<number, number[]>();
const cpuBefore = machineCpu();
for (let round = 0; round < BATCH_ROUNDS; round++) {
  for (const concurrency of [1, defaultConcurrency]) {
    batchRuns.set(concurrency, [...(batchRuns.get(concurrency) ?? []), await batchMs(concurrency)]);
  }
}
const cpuAfter = machineCpu();
const batch1Ms = median(batchRuns.get(1)!);
const batchDefaultMs = median(batchRuns.get(defaultConcurrency)!);

const htmlMs = await time(
  async () => renderReportHtml(buildReportModel(snapshot, [], meta), reportTemplatesFor()),
  SAMPLES,
  1,
);
const workbookMs = await time(
  () => renderWorkbook(snapshot as never, [], { ...meta, account: snapshot.account }),
  5,
  1,
);

// The built CLI as a user runs it: a store with one snapshot, a config, a fresh process each time.
const bin = join(import.meta.dirname, '..', 'bin', 'reportd.js');
seedStore(join(work, 'store.sqlite'), [fixtureSnapshot()]);
const config = join(work, 'reportd.yaml');
writeFileSync(
  config,
  [
    'accounts:',
    '  - name: main',
    '    base_url: http://127.0.0.1:9/v2/integration',
    '    api_key: key',
    '    api_secret: secret',
    'store: { path: ./store.sqlite }',
    'output: { dir: ./out }',
    'sync: { schedule: "0 0 1 1 *" }',
    'smtp: { url: "smtp://127.0.0.1:9", from: "r@example.com" }',
    'reports:',
    '  - name: weekly',
    '    schedule: { cron: "0 0 1 1 *" }',
    '    email: { to: [x@example.com] }',
    '',
  ].join('\n'),
);
function runProcess(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [bin, ...args], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(performance.now() - start)
        : reject(new Error(`reportd ${args[0]} exited ${code}`)),
    );
  });
}
const coldMs = await time(
  () =>
    runProcess([
      'render',
      '--config',
      config,
      '--set',
      '101',
      '--format',
      'pdf',
      '--out',
      join(work, 'cold'),
    ]),
  3,
  1,
);

/** RSS of a real daemon once it has started and gone idle (nothing due, so Chromium never starts). */
async function idleDaemonRss(): Promise<{ rss: number; chromium: number }> {
  const child = spawn(process.execPath, [bin, 'daemon', '--config', config], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, REPORTD_LOG_LEVEL: 'error' },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  await new Promise((resolve) => setTimeout(resolve, 6_000)); // started, first sync pass failed fast
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
  const chromium = processTable().filter((p) => p.ppid === child.pid).length;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  if (rss === 0) throw new Error(`daemon did not start: ${stderr}`);
  return { rss, chromium };
}
const daemon = await idleDaemonRss();
rmSync(work, { recursive: true, force: true });

// Memory: the daemon's loop, with the production recycle setting.
const daemonRenderer = new PdfRenderer({ executablePath, recycleAfter: 50 });
for (let i = 0; i < WARMUP; i++) {
  const d = renderReportHtml(buildReportModel(snapshot, [], meta), reportTemplatesFor());
  await daemonRenderer.render(d.html, d);
}
gc();
const rssBefore = process.memoryUsage().rss;
const heapBefore = process.memoryUsage().heapUsed;
let browserRss = 0;
for (let i = 0; i < MEMORY_RENDERS; i++) {
  const d = renderReportHtml(buildReportModel(snapshot, [], meta), reportTemplatesFor());
  await daemonRenderer.render(d.html, d);
  if (i === MEMORY_RENDERS - 2) {
    const slot = (
      daemonRenderer as unknown as { slots: { browser: Promise<import('puppeteer-core').Browser> }[] }
    ).slots[0];
    browserRss = slot ? treeRss((await slot.browser).process()?.pid) : 0;
  }
}
gc();
const rssAfter = process.memoryUsage().rss;
const heapAfter = process.memoryUsage().heapUsed;
await daemonRenderer.close();

const x = (ms: number) => `${(ms / bareMs).toFixed(2)}×`;
const perMinute = (ms: number) => (20 / ms) * 60_000;
const speedup = perMinute(batchDefaultMs) / perMinute(batch1Ms);
const growth = mb(rssAfter - rssBefore);
console.log(
  `render: warm ${x(warmMs)} · back to back ${x(burstMs)} (goal ≤ 1.3×) · batch of 20 at ${defaultConcurrency} vs 1: ${speedup.toFixed(2)}× reports/min (goal ≥ 1.6×) · HTML step ${htmlMs.toFixed(0)} ms (goal ≤ 60) · cold render ${(coldMs / 1000).toFixed(2)} s (goal ≤ 1.5) · idle daemon ${mb(daemon.rss).toFixed(0)} MB (goal ≤ 100) · RSS +${growth.toFixed(1)} MB after ${MEMORY_RENDERS} (goal < 50)`,
);
console.log(`  bare page.pdf          ${bareMs.toFixed(0)} ms (median of ${SAMPLES}) = 1×`);
console.log(`  warm single            ${warmMs.toFixed(0)} ms (median of ${SAMPLES}) = ${x(warmMs)}`);
console.log(`  back to back           ${burstMs.toFixed(0)} ms per render = ${x(burstMs)}`);
console.log(
  `  batch of 20, conc. 1   ${(batch1Ms / 20).toFixed(0)} ms per report (median of ${BATCH_ROUNDS}) = ${x(batch1Ms / 20)} · ${perMinute(batch1Ms).toFixed(0)} reports/min`,
);
console.log(
  `  batch of 20, conc. ${defaultConcurrency}   ${(batchDefaultMs / 20).toFixed(0)} ms per report (median of ${BATCH_ROUNDS}) = ${x(batchDefaultMs / 20)} · ${perMinute(batchDefaultMs).toFixed(0)} reports/min (${speedup.toFixed(2)}× conc. 1)`,
);
// What the cores allow: the CPU a report costs (every process) bounds the reports per minute of any
// concurrency. How busy the whole machine was says whether that bound was reached (and, on a machine
// that others share, how much was someone else's). Not the load average: on this kind of VM it sits
// near 2 with every core idle (kernel threads waiting uninterruptibly count).
const cpuRuns = batchCpu.get(1)!;
const cpu1 = {
  chromiumMs: median(cpuRuns.map((run) => run.chromiumMs)),
  nodeMs: median(cpuRuns.map((run) => run.nodeMs)),
};
const cpuPerReport = cpu1.chromiumMs + cpu1.nodeMs;
const cpuBound = (availableParallelism() * 60_000) / cpuPerReport;
const busyShare = (cpuAfter.busy - cpuBefore.busy) / (cpuAfter.total - cpuBefore.total);
console.log(
  `  CPU per report         ${cpuPerReport.toFixed(0)} ms at conc. 1 (Chromium ${cpu1.chromiumMs.toFixed(0)} + node ${cpu1.nodeMs.toFixed(0)}): ${availableParallelism()} idle cores allow at most ${cpuBound.toFixed(0)} reports/min; the machine's cores were ${(busyShare * 100).toFixed(0)} % busy during the batches`,
);
console.log(
  `  HTML step              ${htmlMs.toFixed(0)} ms (model + charts + HTML, median of ${SAMPLES}) = ${x(htmlMs)}`,
);
console.log(
  `  cold reportd render    ${coldMs.toFixed(0)} ms (one report as a process, median of 3) = ${x(coldMs)}`,
);
console.log(
  `  idle daemon RSS        ${mb(daemon.rss).toFixed(0)} MB (a real daemon process; Chromium processes under it: ${daemon.chromium})`,
);
console.log(`  workbook               ${workbookMs.toFixed(0)} ms (median of 5)`);
console.log(`  node RSS (50 renders)  ${mb(rssBefore).toFixed(0)} → ${mb(rssAfter).toFixed(0)} MB`);
// The JS heap after a full collection: what a leak in reportd's own code would grow.
console.log(`  node heap used         ${mb(heapBefore).toFixed(0)} → ${mb(heapAfter).toFixed(0)} MB`);
console.log(`  chromium tree PSS      ${mb(browserRss).toFixed(0)} MB (before its recycle at 50)`);
console.log(`  html size              ${(doc.html.length / 1024).toFixed(0)} KiB`);
console.log(`  cores                  ${availableParallelism()} (shared with whatever else runs)`);
if (growth >= 50) process.exitCode = 1;
