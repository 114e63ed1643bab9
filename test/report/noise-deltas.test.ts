import { describe, expect, it } from 'vitest';
import { reportLocale } from '../../src/locale/locale.js';
import { renderReportHtml } from '../../src/report/html.js';
import { buildReportModel } from '../../src/report/model/index.js';
import { runBefore } from './earlier-run.js';
import { fixtureSnapshot } from './fixtures.js';

/**
 * The report's deltas through the noise model: per-engine presence moves of one or two points on
 * the fixture's ~190 answers per engine are no clear change — grey (neutral), no arrow, written with
 * their interval as it is ("−6.2 to +11.3 pts", never "± half") — while the same move on many
 * answers is a likely change and keeps its arrow and colour.
 */

const meta = { generatedAt: new Date('2026-11-16T06:00:00Z'), version: '0.1.0' };

describe('deltas with no clear change', () => {
  it('lose arrow and colour and gain their interval in every locale; likely ones keep them', () => {
    const model = buildReportModel(fixtureSnapshot(), [runBefore(fixtureSnapshot())], meta);
    if (!model.presence.byEngine.available) throw new Error('fixture lacks presence by engine');
    const first = model.presence.byEngine.rows[0]!.delta;
    expect(first).toMatchObject({ verdict: 'unclear', tone: 'neutral', arrow: '', text: '+2.4 pts' });
    expect(first.interval).toMatch(/^−\d+\.\d to \+\d+\.\d pts$/);
    // Uneven: the interval is not the change ± a half-width, so it is printed as it is.
    const [low, high] = first
      .interval!.replace(/−/g, '-')
      .match(/[-+]\d+\.\d/g)!
      .map(Number);
    expect(Math.abs(high! - 2.4 - (2.4 - low!))).toBeGreaterThan(0.1);
    const de = buildReportModel(fixtureSnapshot(), [runBefore(fixtureSnapshot())], {
      ...meta,
      locale: 'de-DE',
    });
    if (!de.presence.byEngine.available) throw new Error('fixture lacks presence by engine');
    expect(de.presence.byEngine.rows[0]!.delta.text).toBe('+2,4 Pp.');
    expect(de.presence.byEngine.rows[0]!.delta.interval).toMatch(/^−\d+,\d bis \+\d+,\d Pp\.$/);

    // The same per-engine move on 100,000 answers a run is beyond noise: arrow and colour stay.
    const big = fixtureSnapshot();
    const positions = big.payloads['presence.position-distribution']!.data as { totalAll: number };
    big.payloads['presence.position-distribution'] = {
      data: { ...positions, totalAll: 100_000 },
      error: null,
    };
    const likely = buildReportModel(big, [runBefore(big)], meta);
    if (!likely.presence.byEngine.available) throw new Error('fixture lacks presence by engine');
    expect(likely.presence.byEngine.rows[0]!.delta).toMatchObject({ arrow: '▲', tone: 'good' });
    // With its interval too, so the story can quote it as the table prints it: above zero.
    expect(likely.presence.byEngine.rows[0]!.delta.interval).toMatch(/^\+\d+\.\d to \+\d+\.\d pts$/);
    // Judged likely, not merely unjudged: the story counts only these as changes.
    expect(likely.presence.byEngine.rows[0]!.delta.verdict).toBe('likely');
  });
});

describe('the noise footnote', () => {
  it('says what the interval is on each page that shows judged deltas, and the family once, in every locale', () => {
    for (const locale of ['en-US', 'de-DE', 'fr-FR', 'es-ES']) {
      const model = buildReportModel(fixtureSnapshot(), [runBefore(fixtureSnapshot())], { ...meta, locale });
      const html = renderReportHtml(model).html;
      const words = reportLocale(locale);
      const note = words.t('delta.noiseFootnote');
      expect(note).toContain('Newcombe');
      expect(note).toContain('Benjamini');
      // Overview, Presence, Life and Gravity each show a grey judged change and carry it, escaped as
      // the template writes text (test/report/noise-marks.test.ts checks every section).
      const escaped = (text: string) => text.replace(/'/g, '&#x27;');
      expect(html.split(escaped(note)).length - 1, locale).toBe(4);
      // How many changes were judged together: said once in the document, on its first such page.
      const family = escaped(
        words.t('delta.family', {
          size: model.judged.size,
          likely: model.judged.likely,
          alpha: words.percent(5, 0),
        }),
      );
      // Every judged figure of the run, shown on a page or not: the family the export and MCP quote.
      expect(model.judged).toMatchObject({ size: 65, headline: 2, alpha: 0.05 });
      expect(html.split(family).length - 1, locale).toBe(1);
      expect(html.indexOf(family)).toBeLessThan(html.indexOf('id="presence"'));
    }
  });
});
