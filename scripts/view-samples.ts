import { writeFileSync } from 'node:fs';
import Handlebars from 'handlebars';
import { renderDigestHtml } from '../src/report/digest/html.js';
import { renderReportHtml } from '../src/report/html.js';
import { buildReportModel } from '../src/report/model/index.js';
import type { ReportTemplates } from '../src/report/templates.js';
import type { ThemeView } from '../src/report/theme/theme.js';
import { fixtureSnapshot } from '../test/report/fixtures.js';

/**
 * The views templates are rendered with, captured from real renders of the test fixtures (every
 * section available, every section unavailable, full and summary, one theme with everything set):
 * what scripts/gen-view-schema.ts infers src/report/check/view-schema.ts from, and what
 * test/report/view-schema.test.ts parses with it.
 */
export interface CapturedViews {
  report: unknown[];
  digest: unknown[];
  margin: unknown[];
}

const meta = { generatedAt: new Date('2026-11-16T06:00:00Z'), version: '0.1.0' };
const theme: ThemeView = {
  logo: {
    type: 'image/png',
    dataUrl: 'data:image/png;base64,AA==',
    png: Buffer.alloc(1),
    width: 1,
    height: 1,
  },
  primary: '#112233',
  accent: '#223344',
  positive: '#334455',
  negative: '#445566',
  fontFamily: "'DejaVu Sans', sans-serif",
  coverTitle: 'Cover title',
  footer: 'Footer',
  logoAlt: 'Acme Agency',
  css: ':root { --primary: #112233; }',
};

export function captureViews(): CapturedViews {
  const out: CapturedViews = { report: [], digest: [], margin: [] };
  const capture = (into: unknown[]) => (view: unknown) => {
    into.push(view);
    return '';
  };
  const templates = {
    report: capture(out.report),
    digest: capture(out.digest),
    header: capture(out.margin),
    footer: capture(out.margin),
    css: '',
    dirs: [],
  } as unknown as ReportTemplates;
  const earlier = [3, 4, 5].map((id) => fixtureSnapshot({ id, runId: 4800 + id, run: `W${40 + id} 2026` }));
  const full = buildReportModel(fixtureSnapshot(), earlier, meta);
  const empty = buildReportModel(fixtureSnapshot({ payloads: emptyPayloads() }), [], meta);
  // A comparison no stored run reaches: the cards carry `versus` ("no stored run that old").
  const compared = buildReportModel(fixtureSnapshot(), [], { ...meta, compareWith: '52 weeks' });
  const move = {
    querySet: 'Set',
    brand: 'Brand',
    endpoint: 'presence',
    field: 'weighted',
    dimension: 'all',
    from: 1,
    to: 2,
    unit: 'percent_points',
    score: 1,
  } as never;
  for (const model of [full, empty, compared]) {
    renderReportHtml(model, templates);
    renderReportHtml(model, templates, undefined, { detail: 'summary', movers: [move], theme });
  }
  renderDigestHtml(
    {
      report: 'weekly',
      sets: [
        { model: full, moves: [move] },
        { model: empty, moves: [], repeated: true },
      ],
      moves: [move],
      contents: { theme },
      period: 'W45 2026',
      pages: { portfolio: 3, sets: [4, 9] },
    },
    templates,
  );
  return out;
}

function emptyPayloads(): Record<string, undefined> {
  const keys = Object.keys(fixtureSnapshot().payloads);
  return Object.fromEntries(keys.map((key) => [key, undefined]));
}

// Handlebars' SafeString is what charts are handed over as: the schema calls it `html`.
export const isHtml = (value: unknown) => value instanceof Handlebars.SafeString;

if (process.argv[1]?.endsWith('view-samples.ts')) {
  writeFileSync('/dev/stdout', `${JSON.stringify(captureViews()).length} bytes of views\n`);
}
