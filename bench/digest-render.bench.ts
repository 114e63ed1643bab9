/**
 * `npm run bench:render`, digest part: a digest of 10 query sets against 10 single-set reports of the
 * same snapshots, with the same warm PdfRenderer.
 *
 * - time per set: the digest's total (model → HTML, the draft render whose outline gives the contents
 *   page its numbers, then the front-matter pass: cover and contents printed again and swapped in)
 *   divided by 10, against one single report's (model → HTML → one render).
 *   Goal: the digest costs at most the single reports' sum (ratio ≤ 1.0). The draft alone is timed
 *   too, so the line says what the second pass costs over one render of the whole document;
 * - memory: peak PSS of this process and its Chromium tree while the digest renders, against the
 *   peak while one single report renders, in rounds of their own (sampling slows what it measures).
 *   Goal: ≤ 1.5×.
 *
 * First line: the ratios; then details. The machine may be shared: compare ratios, not milliseconds.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { periodOf, renderDigestHtml } from '../src/report/digest/html.js';
import { type DigestHtml, printDigestPdf } from '../src/report/digest/render.js';
import { renderReportHtml } from '../src/report/html.js';
import { buildReportModel } from '../src/report/model/index.js';
import { PdfRenderer } from '../src/report/pdf.js';
import { loadReportTemplates } from '../src/report/templates.js';
import { fixtureSnapshot } from '../test/report/fixtures.js';

const SETS = 10;
const ROUNDS = 3;
const mb = (bytes: number) => bytes / 1024 / 1024;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** PSS of a process tree (Chromium shares most pages between its processes; RSS would overcount). */
function treePss(root: number): number {
  const children = new Map<number, number[]>();
  const pss = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
      const rollup = readFileSync(`/proc/${name}/smaps_rollup`, 'utf8');
      pss.set(Number(name), Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024);
    } catch {
      // gone
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    total += pss.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/**
 * Runs `work`; with `sampleMemory`, samples the tree's PSS every 50 ms and returns the peak. Timed
 * rounds do not sample: reading every process's smaps_rollup costs this process's thread several ms
 * a time, which slowed the digest's front-matter pass (pdf-lib, on that same thread) by a fifth.
 */
async function measured(
  work: () => Promise<unknown>,
  { sampleMemory = false } = {},
): Promise<{ ms: number; peak: number }> {
  let peak = sampleMemory ? treePss(process.pid) : 0;
  const timer = sampleMemory
    ? setInterval(() => {
        peak = Math.max(peak, treePss(process.pid));
      }, 50)
    : undefined;
  const start = performance.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  const ms = performance.now() - start;
  return { ms, peak: sampleMemory ? Math.max(peak, treePss(process.pid)) : 0 };
}

const meta = { generatedAt: new Date(), version: 'bench' };
const templates = loadReportTemplates();
const snapshots = Array.from({ length: SETS }, (_, i) =>
  fixtureSnapshot({ querySet: `Query set ${i + 1}`, brand: `Brand ${i + 1}`, runId: 5000 + i }),
);
const renderer = new PdfRenderer({ recycleAfter: 1000 });

const single = async (i: number) => {
  const doc = renderReportHtml(buildReportModel(snapshots[i]!, [], meta), templates);
  return renderer.render(doc.html, doc);
};
const sets = () => snapshots.map((snapshot) => ({ model: buildReportModel(snapshot, [], meta), moves: [] }));
const period = periodOf(snapshots.map((snapshot) => snapshot.run));
const digest = async () => {
  const built = sets();
  const html: DigestHtml = (pages, frontOnly) =>
    renderDigestHtml(
      { report: 'bench', sets: built, moves: [], contents: {}, period, pages, frontOnly },
      templates,
    );
  return printDigestPdf(renderer, html, SETS, true);
};
/** The first pass alone: model → HTML → one render of the whole digest with its outline. */
const draftOnly = async () => {
  const doc = renderDigestHtml({ report: 'bench', sets: sets(), moves: [], contents: {}, period }, templates);
  return renderer.render(doc.html, doc);
};

await single(0); // launch and warm up
await digest();
const singleSums: number[] = [];
const digestTimes: number[] = [];
const singlePeaks: number[] = [];
const digestPeaks: number[] = [];
const draftTimes: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  let sum = 0;
  for (let i = 0; i < SETS; i++) {
    await renderer.idle();
    sum += (await measured(() => single(i))).ms;
  }
  singleSums.push(sum);
  await renderer.idle();
  digestTimes.push((await measured(digest)).ms);
  await renderer.idle();
  draftTimes.push((await measured(draftOnly)).ms);
}
// Memory apart from time (see measured): a few single reports and the digest, sampled.
for (let round = 0; round < ROUNDS; round++) {
  await renderer.idle();
  singlePeaks.push((await measured(() => single(round), { sampleMemory: true })).peak);
  await renderer.idle();
  digestPeaks.push((await measured(digest, { sampleMemory: true })).peak);
}
const pages = (await digest()).toString('latin1').match(/\/Type\s*\/Page\b/g)?.length ?? 0;
await renderer.close();

const singleSum = median(singleSums);
const digestMs = median(digestTimes);
const singlePeak = median(singlePeaks);
const digestPeak = median(digestPeaks);
const draftMs = median(draftTimes);
console.log(
  `digest of ${SETS} sets: time ${(digestMs / singleSum).toFixed(2)}× the ${SETS} single reports' sum (goal ≤ 1.0), ` +
    `peak memory ${(digestPeak / singlePeak).toFixed(2)}× one report's (goal ≤ 1.5)`,
);
console.log(
  `  per set: digest ${(digestMs / SETS).toFixed(0)} ms, single report ${(singleSum / SETS).toFixed(0)} ms; ` +
    `digest ${pages} pages: the whole document once ${draftMs.toFixed(0)} ms, ` +
    `the front-matter pass (contents numbers) ${(digestMs - draftMs).toFixed(0)} ms`,
);
console.log(
  `  peak PSS (this process + Chromium): digest ${mb(digestPeak).toFixed(0)} MB, one report ${mb(singlePeak).toFixed(0)} MB; medians of ${ROUNDS} rounds`,
);
