import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/insight/changes.js';
import { newcombeDifference, wilson } from '../../src/insight/interval.js';
import type { InsightRow } from '../../src/insight/sample-sizes.js';

/**
 * The noise model against the published numbers (Newcombe 1998, Statistics in Medicine 17:873–890,
 * Table II), then on rows as the metrics layer stores them: which n stands behind which share, and
 * what is called real, noise or unknown.
 */

describe('the interval arithmetic', () => {
  it("gives Wilson's interval and Newcombe's method 10 as published", () => {
    // Newcombe's example (a): 56/70 − 48/80 → 0.0524 to 0.3339.
    const d = newcombeDifference(56 / 70, 70, 48 / 80, 80);
    expect(d.low).toBeCloseTo(0.0524, 4);
    expect(d.high).toBeCloseTo(0.3339, 4);
    // Example (g): 0/10 − 0/20 → −0.1611 to 0.2775.
    const zero = newcombeDifference(0, 10, 0, 20);
    expect(zero.low).toBeCloseTo(-0.1611, 4);
    expect(zero.high).toBeCloseTo(0.2775, 4);
    const w = wilson(81 / 263, 263);
    expect(w.low).toBeCloseTo(0.2553, 4);
    expect(w.high).toBeCloseTo(0.3662, 4);
  });
});

const row = (
  endpoint: string,
  field: string,
  value: number,
  unit: InsightRow['unit'],
  dimension = '',
  id: string | null = null,
  label: string | null = null,
): InsightRow => ({ endpoint, field, dimension, dimension_id: id, dimension_label: label, value, unit });

const runRows = (gross: number, chatgpt: number, life: number, answers = 1200): InsightRow[] => [
  row('presence.gross', 'current', gross, 'percent'),
  row('presence.gross', 'delta', 1.5, 'percent'),
  row('presence.position-distribution', 'totalAll', answers, 'count'),
  row('presence.position-distribution', 'totalAnswers', Math.round(answers * 0.4), 'count'),
  ...[3, 5, 7, 9, 12].map((id) =>
    row('presence.by-engine', 'gross', id === 3 ? chatgpt : 40, 'percent', 'engine', String(id), `E${id}`),
  ),
  row('presence.position-distribution-by-engine', 'timesCited', 90, 'count', 'engine', '3', 'E3'),
  row('presence.position-distribution-by-engine', 'p1', 0.4, 'fraction', 'engine', '3', 'E3'),
  row('life.kpi', 'current', life, 'score'),
];

describe('changes between two runs', () => {
  it('take n from the payloads, per engine from the engine count, and mark real, noise or unknown', () => {
    const changes = compareRuns(runRows(42, 40, 60), runRows(30, 42.6, 70));
    const byKey = new Map(changes.map((c) => [`${c.endpoint}.${c.field}.${c.dimension_id ?? ''}`, c]));
    // A 12-point drop on 1,200 answers is beyond noise.
    expect(byKey.get('presence.gross.current.')).toMatchObject({
      significance: 'real',
      nBefore: 1200,
      nAfter: 1200,
      nSource: 'totalAll',
    });
    // ChatGPT "+2.6 pts" on 240 answers: the interval is about ±9 points, so it is noise.
    const chatgpt = byKey.get('presence.by-engine.gross.3')!;
    expect(chatgpt).toMatchObject({ significance: 'noise', nAfter: 240, nSource: 'totalAll ÷ 5 engines' });
    expect(chatgpt.high! - chatgpt.low!).toBeGreaterThan(16);
    expect(chatgpt.high! - chatgpt.low!).toBeLessThan(19);
    // Position shares per engine are counted on the answers that engine cited the brand in.
    expect(byKey.get('presence.position-distribution-by-engine.p1.3')).toMatchObject({ nAfter: 90 });
    // Life is a score, not a share: even ten points are unknown, never real.
    expect(byKey.get('life.kpi.current.')).toMatchObject({ significance: 'unknown', low: null });
    // Counts and the API's own deltas: counts are unknown, deltas are not compared at all.
    expect(byKey.get('presence.position-distribution.totalAll.')?.significance).toBe('unknown');
    expect(changes.some((c) => /delta/i.test(c.field))).toBe(false);
  });

  it('call a share without any n unknown', () => {
    const bare = (v: number) => [row('presence.gross', 'current', v, 'percent')];
    expect(compareRuns(bare(42), bare(20))[0]).toMatchObject({ significance: 'unknown', nAfter: null });
  });
});
