import { describe, expect, it } from 'vitest';
import { ALERTABLE } from '../../src/config/alertable-metrics.js';
import { metricName, NAME_TABLES } from '../../src/insight/metric-names.js';

/**
 * The one table of metric names: every field an alert rule may name reads as words in every
 * language (no machine path, no `current`), German, French and Spanish names are not the English
 * ones (product names such as Life and Gravity± aside), and members are named in the language.
 */

// Product names, and French "Citations", which is the same word.
const PRODUCT_NAMES = new Set(['Life', 'Gravity+', 'Gravity−', 'Citations']);
const fields = Object.entries(ALERTABLE).flatMap(([endpoint, def]) => [
  ...def.fields.map((field) => ({ endpoint, field, dimension: '' })),
  ...Object.entries(def.per ?? {}).flatMap(([dimension, list]) =>
    (list ?? []).map((field) => ({ endpoint, field, dimension })),
  ),
]);

describe('metric names', () => {
  it('name every alertable field in words in every locale', () => {
    for (const locale of ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'es-ES']) {
      for (const ref of fields) {
        const name = metricName({ ...ref, dimension: '' }, locale);
        expect(name, `${ref.endpoint}.${ref.field} in ${locale}`).not.toMatch(
          /\.(current|delta)\b|presence\.|life\.|gravity\.|scout\.|market\.|overview\./,
        );
        expect(name.length).toBeGreaterThan(2);
      }
    }
  });

  it('have a table per language with the same keys, translated', () => {
    const english = NAME_TABLES.en!.names;
    for (const lang of ['de', 'fr', 'es']) {
      const table = NAME_TABLES[lang]!.names;
      expect(Object.keys(table).sort()).toEqual(Object.keys(english).sort());
      const same = Object.keys(english).filter(
        (key) => table[key] === english[key] && !PRODUCT_NAMES.has(english[key]!),
      );
      expect(same, `untranslated in ${lang}`).toEqual([]);
    }
  });

  it('say what moved: engine, intent, competitor, source category, stance', () => {
    const engine = {
      endpoint: 'presence.by-engine',
      field: 'gross',
      dimension: 'engine',
      dimension_id: '3',
      dimension_label: 'ChatGPT',
    };
    expect(metricName(engine)).toBe('Gross presence on ChatGPT');
    expect(metricName(engine, 'de-DE')).toBe('Bruttopräsenz bei ChatGPT');
    expect(metricName(engine, 'fr-FR')).toBe('Présence brute sur ChatGPT');
    expect(metricName(engine, 'es-ES')).toBe('Presencia bruta en ChatGPT');
    expect(
      metricName({
        endpoint: 'overview.competitive-context',
        field: 'share',
        dimension: 'competitor',
        dimension_id: 'Acme',
        dimension_label: 'Acme',
      }),
    ).toBe('Share of voice of Acme');
    // A source is named after a colon: "Engines citing of example.com" is no English.
    const source = {
      endpoint: 'scout.source-landscape',
      field: 'engines',
      dimension: 'source',
      dimension_id: 'example.com',
      dimension_label: 'example.com',
    };
    expect(metricName(source)).toBe('Engines citing: example.com');
    expect(metricName(source, 'fr-FR')).toBe('Moteurs qui citent : example.com');
    expect(
      metricName(
        {
          endpoint: 'gravity.source-distribution',
          field: 'share',
          dimension: 'category',
          dimension_id: 'owned',
          dimension_label: 'owned',
        },
        'de-DE',
      ),
    ).toBe('Anteil der zitierten Quellen: eigene Quellen');
    expect(
      metricName(
        {
          endpoint: 'life.stance-mix',
          field: 'share',
          dimension: 'stance',
          dimension_id: 'recommended',
          dimension_label: 'recommended',
        },
        'fr-FR',
      ),
    ).toBe('Part de la tonalité : recommandé');
    expect(
      metricName({
        endpoint: 'presence.by-intent',
        field: 'deltaG',
        dimension: 'intent',
        dimension_id: '4',
        dimension_label: 'Best beans',
      }),
    ).toBe('Change in Gross presence for “Best beans”');
  });
});
