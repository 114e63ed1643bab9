/**
 * The HTML step alone (model → charts → HTML), for profiling:
 * `node --import tsx --cpu-prof --cpu-prof-dir=prof bench/html-step.prof.ts`, then open the largest
 * `.cpuprofile` in Chrome DevTools. Prints where the time goes at the coarsest grain.
 */
import { renderReportHtml } from '../src/report/html.js';
import { buildReportModel } from '../src/report/model/index.js';
import { loadReportTemplates } from '../src/report/templates.js';
import { fixtureSnapshot } from '../test/report/fixtures.js';

const snapshot = fixtureSnapshot();
const meta = { generatedAt: new Date(), version: 'p' };
const t0 = performance.now();
const templates = loadReportTemplates();
const t1 = performance.now();
for (let i = 0; i < 3; i++) renderReportHtml(buildReportModel(snapshot, [], meta), templates);
const t2 = performance.now();
const N = 40;
let m = 0,
  h = 0;
for (let i = 0; i < N; i++) {
  const a = performance.now();
  const model = buildReportModel(snapshot, [], meta);
  const b = performance.now();
  renderReportHtml(model, templates);
  m += b - a;
  h += performance.now() - b;
}
console.log(
  `templates ${(t1 - t0).toFixed(1)} ms, first 3 ${(t2 - t1).toFixed(0)} ms, model ${(m / N).toFixed(1)} ms, view+charts+html ${(h / N).toFixed(1)} ms`,
);
