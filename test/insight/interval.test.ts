import { describe, expect, it } from 'vitest';
import { newcombeDifference, wilson } from '../../src/insight/interval.js';
import { compareRuns } from '../../src/insight/row-changes.js';
import type { InsightRow } from '../../src/insight/sample-sizes.js';

/**
 * The noise model against the published numbers (Newcombe 1998, Statistics in Medicine 17:873–890,
 * Table II), then on rows as the metrics layer stores them: which n stands behind which share, and
 * what is called a likely change, no clear change (unclear) or unknown.
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
  it('take n from the payloads, per engine from the engine count, and mark likely, unclear or unknown', () => {
    const changes = compareRuns(runRows(42, 40, 60), runRows(30, 42.6, 70));
    const byKey = new Map(changes.map((c) => [`${c.endpoint}.${c.field}.${c.dimension_id ?? ''}`, c]));
    // A 12-point drop on 1,200 answers is a likely change; gross presence is a headline figure, judged
    // in the run's primary family (here alone), the 6 other judged changes in the other.
    expect(byKey.get('presence.gross.current.')).toMatchObject({
      significance: 'likely',
      nBefore: 1200,
      nAfter: 1200,
      nSource: 'totalAll',
      familySize: 1,
    });
    expect(byKey.get('presence.by-engine.gross.3')?.familySize).toBe(6);
    // ChatGPT "+2.6 pts" on 240 answers: the interval is wider than ±9 points, so no clear change.
    const chatgpt = byKey.get('presence.by-engine.gross.3')!;
    expect(chatgpt).toMatchObject({ significance: 'unclear', nAfter: 240, nSource: 'totalAll ÷ 5 engines' });
    expect(chatgpt.level!).toBeGreaterThan(0.95);
    expect(chatgpt.high! - chatgpt.low!).toBeGreaterThan(18);
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

  it('judge only what the payloads give an n for: nothing per intent, no source share, no share of voice', () => {
    const rows = (v: number): InsightRow[] => [
      ...runRows(42, 40, 60),
      row('presence.by-intent', 'gross', v, 'percent', 'intent', '41', 'Best beans'),
      row(
        'presence.engine-intent-matrix',
        'presence',
        v,
        'percent',
        'engine_intent',
        '3|41',
        'E3 | Best beans',
      ),
      row('life.by-intent', 'stance.rec', v / 100, 'fraction', 'intent', '41', 'Best beans'),
      row('gravity.source-distribution', 'share', v / 100, 'fraction', 'category', 'owned', 'Owned'),
      row('scout.source-landscape', 'citations', 400, 'count', 'source', 'a.com', 'a.com'),
      row('overview.competitive-context', 'share', v / 100, 'fraction', 'competitor', 'Acme', 'Acme'),
      row('market.data', 'responsesWithBrands.current', 800, 'count'),
    ];
    const changes = compareRuns(rows(20), rows(60));
    for (const endpoint of [
      'presence.by-intent',
      'presence.engine-intent-matrix',
      'life.by-intent',
      'gravity.source-distribution',
      'overview.competitive-context',
    ]) {
      const change = changes.find((c) => c.endpoint === endpoint)!;
      // A 40-point move: on any n it would be called likely, if an n were known.
      expect(change, endpoint).toMatchObject({ significance: 'unknown', p: null, low: null, nAfter: null });
    }
  });

  it('judge a figure once, however many rows carry it', () => {
    const rows = (plus: number): InsightRow[] => [
      ...runRows(42, 40, 60),
      row('gravity.by-engine', 'gravityPlus', plus, 'percent', 'engine', '3', 'E3'),
      row('gravity.by-engine', 'gPlus', plus / 100, 'fraction', 'engine', '3', 'E3'),
      row('presence.position-distribution', 'p1', 0.3, 'fraction'),
      row('presence.position-distribution-by-engine', 'totals.p1', 0.3, 'fraction'),
    ];
    const changes = compareRuns(rows(20), rows(40));
    const get = (field: string) => changes.find((c) => c.field === field)!;
    // gPlus is gravityPlus as a fraction; totals.p1 is the overall p1: one judgement each, shared.
    expect(get('gPlus')).toMatchObject({
      significance: get('gravityPlus').significance,
      q: get('gravityPlus').q,
    });
    expect(get('totals.p1').q).toBe(get('p1').q);
    const judged = changes.filter((c) => c.significance !== 'unknown');
    // gross (a headline figure, alone in its family), 5 engines, the by-engine p1, gravityPlus and p1:
    // 8 figures in the other family, though 10 of the rows judged are theirs.
    expect(judged).toHaveLength(11);
    expect(judged.filter((c) => c.familySize === 8)).toHaveLength(10);
  });
});
