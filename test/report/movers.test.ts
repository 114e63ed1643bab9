import { describe, expect, it } from 'vitest';
import { reportLocale, withLocale } from '../../src/locale/locale.js';
import { moverView } from '../../src/report/digest/mover-view.js';
import { biggestMoves } from '../../src/report/digest/movers.js';
import type { MetricValueRow } from '../../src/store/metric-reads.js';

/**
 * "Biggest changes": level metrics only (never a field that is itself a change), likely changes
 * before the rest (each set's run judged as one family), then by size, each named in words with
 * what moved.
 */

const base = {
  account: 'acme',
  brand_id: 1,
  brand: 'Northwind Coffee',
  query_set_id: 101,
  query_set: 'Coffee',
  run_created_at: '2026-11-16T06:00:00Z',
};
const row = (
  run: number,
  endpoint: string,
  field: string,
  value: number,
  unit: MetricValueRow['unit'],
  dimension = '',
  id: string | null = null,
  label: string | null = null,
): MetricValueRow => ({
  ...base,
  run_id: run,
  run: `W${run}`,
  endpoint,
  field,
  dimension,
  dimension_id: id,
  dimension_label: label,
  value,
  unit,
});

const runRows = (run: number, gross: number, claude: number, cited: number, deltaCited: number) => [
  row(run, 'presence.gross', 'current', gross, 'percent'),
  row(run, 'presence.position-distribution', 'totalAll', 1200, 'count'),
  row(run, 'presence.by-engine', 'gross', claude, 'percent', 'engine', '9', 'Claude'),
  // Five engines: each measured on 1,200 ÷ 5 = 240 answers.
  ...['3', '5', '7', '12'].map((id) =>
    row(run, 'presence.by-engine', 'gross', 40, 'percent', 'engine', id, `E${id}`),
  ),
  row(run, 'presence.position-distribution-by-engine', 'timesCited', cited, 'count', 'engine', '9', 'Claude'),
  row(
    run,
    'presence.position-distribution-by-engine',
    'deltaTimesCited',
    deltaCited,
    'count',
    'engine',
    '9',
    'Claude',
  ),
  row(
    run,
    'scout.source-landscape',
    'delta',
    deltaCited,
    'count',
    'source',
    'coffeereview.com',
    'coffeereview.com',
  ),
];

describe('biggest changes', () => {
  it('rank level metrics only, likely changes first, and name what moved', () => {
    // Gross presence −7 pts on 1,200 answers is a likely change, even among the run's 6 judged
    // changes; Claude +6 pts on 240 answers is no clear change, though larger; deltaTimesCited 1 → −11
    // and a source's delta move most but are changes of changes.
    const moves = biggestMoves(runRows(1, 45, 30, 100, 1), runRows(2, 38, 36, 95, -11), 10);
    expect(moves.some((m) => /delta/i.test(m.field))).toBe(false);
    expect(moves[0]).toMatchObject({ endpoint: 'presence.gross', significance: 'likely' });
    expect(moves[1]).toMatchObject({
      endpoint: 'presence.by-engine',
      dimensionLabel: 'Claude',
      significance: 'unclear',
    });
    const en = withLocale(reportLocale('en-US'), () => moves.map(moverView));
    expect(en.map((m) => m.metric)).toEqual([
      'Gross presence',
      'Gross presence on Claude',
      'Times cited on Claude',
    ]);
    expect(en[0]).toMatchObject({ likely: true });
    expect(en[1]).toMatchObject({ likely: false, from: '30.0%', to: '36.0%' });
    const de = withLocale(reportLocale('de-DE'), () => moves.map(moverView));
    expect(de[1]!.metric).toBe('Bruttopräsenz bei Claude');
  });
});
