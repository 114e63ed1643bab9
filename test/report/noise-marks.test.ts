import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORT_LOCALES } from '../../src/config/locale-tags.js';
import { reportLocale } from '../../src/locale/locale.js';
import { THEME } from '../../src/report/charts/svg.js';
import { renderDigestHtml } from '../../src/report/digest/html.js';
import { renderReportHtml } from '../../src/report/html.js';
import { buildReportModel } from '../../src/report/model/index.js';
import type { ReportSnapshot } from '../../src/report/model/snapshot.js';
import { loadReportTemplates } from '../../src/report/templates.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runBefore } from './earlier-run.js';
import { fixtureSnapshot } from './fixtures.js';
import { everySandboxSet } from './sandbox-snapshot.js';

/**
 * What a change judged as no clear change does to the rest of the page: its sparkline is grey, not
 * green or red, and every page (report section, digest portfolio) that prints a judged change with
 * its interval carries the footnote saying what the interval is — and a page with none does not.
 */

const meta = (locale = 'en-US') => ({
  locale,
  timeZone: 'UTC',
  generatedAt: new Date('2026-11-16T06:00:00Z'),
  version: 'test',
});

/** The colour a KPI card's sparkline is stroked in, by the card's label. */
function sparkStrokes(html: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const card of html.split('<div class="kpi">').slice(1)) {
    const label = card.match(/<div class="kpi-label">([^<]*)<\/div>/)?.[1];
    const stroke = card.match(
      /<div class="kpi-spark"><svg[\s\S]*?<polyline[^>]*stroke="(#[0-9A-Fa-f]{6})"/,
    )?.[1];
    if (label && stroke && !out.has(label)) out.set(label, stroke);
  }
  return out;
}

/** A delta with no clear change: grey, no arrow, "+0.8 pts (−3.4 to +5.1 pts)" (not a flat "±0"). */
const NOISE_DELTA =
  /<span class="delta neutral"><span role="img" aria-label="[^"]*"><span class="arrow"><\/span> [^<]*\d[^<]*<\/span> <span class="interval">\([^<]*\d[^<]*\)<\/span>/;

/** A delta the model judged either way: it prints its interval (likely ones keep their arrow and colour). */
const JUDGED_DELTA =
  /<span class="delta \w+"><span role="img" aria-label="[^"]*"><span class="arrow">[▲▼]?<\/span> [^<]*\d[^<]*(?:<span class="meaning">[^<]*<\/span>)?<\/span> <span class="interval">/;

/** The footnote as the template escapes it. */
const footnote = (locale: string) => reportLocale(locale).t('delta.noiseFootnote').replace(/'/g, '&#x27;');

/** Each `<section>` of a document, by its id or class. */
function sections(html: string): { name: string; html: string }[] {
  return [...html.matchAll(/<section class="([^"]*)"(?: id="([^"]*)")?>([\s\S]*?)<\/section>/g)].map((m) => ({
    name: m[2] ?? m[1]!,
    html: m[3]!,
  }));
}

describe('sparklines follow the noise rule', () => {
  it('are grey when the last change is no clear change, coloured when it is likely', () => {
    const html = renderReportHtml(
      buildReportModel(fixtureSnapshot(), [runBefore(fixtureSnapshot())], meta()),
    ).html;
    const strokes = sparkStrokes(html);
    // The fixture's weighted presence moves −0.8 pts (an interval around zero): no clear change, so grey.
    expect(html).toMatch(
      /Weighted presence<\/div>\s*<div class="kpi-value">[^<]*<\/div>\s*<div class="kpi-delta"><span class="delta neutral"><span role="img" aria-label="down 0\.8 points, no clear change"><span class="arrow"><\/span> −0\.8 pts<\/span> <span class="interval">\(−\d+\.\d to \+\d+\.\d pts\)/,
    );
    expect(strokes.get('Weighted presence')).toBe(THEME.neutral);
    // Open errors fell by one (a count the model does not judge): no colour suggests a judgement.
    expect(strokes.get('Open errors')).toBe(THEME.primary);

    // The same move on 100,000 answers is a likely change: the line is coloured like its arrow again.
    const big = fixtureSnapshot();
    const positions = big.payloads['presence.position-distribution']!.data as { totalAll: number };
    big.payloads['presence.position-distribution'] = {
      data: { ...positions, totalAll: 100_000 },
      error: null,
    };
    const real = renderReportHtml(buildReportModel(big, [runBefore(big)], meta())).html;
    expect(real).toMatch(
      /Weighted presence<\/div>\s*<div class="kpi-value">[^<]*<\/div>\s*<div class="kpi-delta"><span class="delta bad"><span role="img" aria-label="down 0\.8 points, likely change, worse"><span class="arrow">▼<\/span> −0\.8 pts <span class="meaning">worse<\/span><\/span>/,
    );
    expect(sparkStrokes(real).get('Weighted presence')).toBe(THEME.bad);
  });
});

describe('the noise footnote on every page that shows a judged change', () => {
  let sandbox: Sandbox;
  let snapshots: ReportSnapshot[] = [];
  beforeAll(async () => {
    sandbox = await startSandbox();
    snapshots = await everySandboxSet(sandbox);
  }, 120_000);
  afterAll(async () => {
    await sandbox?.close();
  });

  it('holds for every section of every demo report and the digest portfolio, in every locale', () => {
    expect(snapshots.length).toBeGreaterThan(1);
    let noisy = 0;
    let quiet = 0;
    for (const locale of REPORT_LOCALES) {
      const note = footnote(locale);
      const models = [fixtureSnapshot(), ...snapshots].map((s) =>
        buildReportModel(s, [runBefore(s)], meta(locale)),
      );
      for (const model of models) {
        for (const section of sections(renderReportHtml(model).html)) {
          const where = `${locale} ${model.cover.querySet} ${section.name}`;
          if (JUDGED_DELTA.test(section.html)) {
            noisy++;
            expect(section.html, where).toContain(note);
          } else {
            quiet++;
            expect(section.html, where).not.toContain(note);
          }
        }
      }
      const rendered = renderDigestHtml(
        {
          report: 'weekly',
          sets: models.map((model) => ({ model, moves: [] })),
          moves: [],
          locale,
          contents: {},
          period: 'Week 1',
        },
        loadReportTemplates(),
      );
      const portfolio = sections(rendered.html).find((s) => s.name.includes('portfolio'));
      expect(portfolio, locale).toBeDefined();
      expect(portfolio!.html, locale).toMatch(NOISE_DELTA);
      expect(portfolio!.html, locale).toContain(note);
    }
    // Both kinds of page were seen, so neither branch passed by default.
    expect(noisy).toBeGreaterThan(0);
    expect(quiet).toBeGreaterThan(0);
  }, 120_000);
});
