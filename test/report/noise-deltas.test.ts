import { describe, expect, it } from 'vitest';
import { reportLocale } from '../../src/locale/locale.js';
import { renderReportHtml } from '../../src/report/html.js';
import { buildReportModel } from '../../src/report/model/index.js';
import { fixtureSnapshot } from './fixtures.js';

/**
 * The report's deltas through the noise model: per-engine presence moves of one or two points on
 * the fixture's ~190 answers per engine are within noise — grey (neutral), no arrow, written with the
 * interval's "±" — while the same move on many answers keeps its arrow and colour.
 */

const meta = { generatedAt: new Date('2026-11-16T06:00:00Z'), version: '0.1.0' };

describe('deltas within noise', () => {
  it('lose arrow and colour and gain ± in every locale; real ones keep them', () => {
    const model = buildReportModel(fixtureSnapshot(), [], meta);
    if (!model.presence.byEngine.available) throw new Error('fixture lacks presence by engine');
    const first = model.presence.byEngine.rows[0]!.delta;
    expect(first).toMatchObject({ noise: true, tone: 'neutral', arrow: '' });
    expect(first.text).toMatch(/^\+2\.4 ± \d+\.\d pts$/);
    const de = buildReportModel(fixtureSnapshot(), [], { ...meta, locale: 'de-DE' });
    if (!de.presence.byEngine.available) throw new Error('fixture lacks presence by engine');
    expect(de.presence.byEngine.rows[0]!.delta.text).toMatch(/^\+2,4 ± \d+,\d Pp\.$/);

    // The same per-engine move on 100,000 answers a run is beyond noise: arrow and colour stay.
    const big = fixtureSnapshot();
    const positions = big.payloads['presence.position-distribution']!.data as { totalAll: number };
    big.payloads['presence.position-distribution'] = {
      data: { ...positions, totalAll: 100_000 },
      error: null,
    };
    const real = buildReportModel(big, [], meta);
    if (!real.presence.byEngine.available) throw new Error('fixture lacks presence by engine');
    expect(real.presence.byEngine.rows[0]!.delta).toMatchObject({ arrow: '▲', tone: 'good' });
    // With its interval too, so the story can quote it as the table prints it.
    expect(real.presence.byEngine.rows[0]!.delta.text).toMatch(/^\+2\.4 ± \d+\.\d pts$/);
    // Judged real, not merely unjudged: the story counts only these as changes.
    expect(real.presence.byEngine.rows[0]!.delta.noise).toBe(false);
  });
});

describe('the noise footnote', () => {
  it('says what the interval is on each page that shows judged deltas, in every locale', () => {
    for (const locale of ['en-US', 'de-DE', 'fr-FR', 'es-ES']) {
      const html = renderReportHtml(buildReportModel(fixtureSnapshot(), [], { ...meta, locale })).html;
      const note = reportLocale(locale).t('delta.noiseFootnote');
      expect(note).toContain('Newcombe');
      // Overview, Presence, Life and Gravity each show a grey ± change and carry it, escaped as the
      // template writes text (test/report/noise-marks.test.ts checks every section).
      const escaped = note.replace(/'/g, '&#x27;');
      expect(html.split(escaped).length - 1, locale).toBe(4);
    }
  });
});
