import { describe, expect, it } from 'vitest';
import { judgeTogether, measureChange } from '../../src/insight/changes.js';
import { benjaminiHochberg, holm, judgeFamily } from '../../src/insight/families.js';
import { newcombeDifference, newcombePValue } from '../../src/insight/interval.js';
import { twoSidedTail, zOfTwoSided } from '../../src/insight/normal.js';

/**
 * The arithmetic of families, against values worked by hand (and by R's `p.adjust`, which gives the
 * same numbers): the normal tail and its inverse, the p-value that belongs to Newcombe's interval,
 * Benjamini–Hochberg and Holm, and the level each member's interval is drawn at.
 */

describe('the normal distribution', () => {
  it('gives the two-sided tails of the tables and inverts them', () => {
    expect(twoSidedTail(1.959963984540054)).toBeCloseTo(0.05, 12);
    expect(twoSidedTail(1)).toBeCloseTo(0.3173105078629141, 12);
    // Deep in the tail the relative error stays small: 2·Q(10) = 1.5239706e-23.
    expect(twoSidedTail(10) / 1.523970604832105e-23).toBeCloseTo(1, 9);
    for (const alpha of [0.5, 0.05, 0.01, 1e-6, 1e-12])
      expect(twoSidedTail(zOfTwoSided(alpha)) / alpha).toBeCloseTo(1, 9);
    expect(zOfTwoSided(0.01)).toBeCloseTo(2.5758293035489, 9);
  });
});

describe("the p-value of Newcombe's interval", () => {
  it('is the level at which the interval touches zero', () => {
    // Newcombe's example (a), 56/70 − 48/80: the 95 % interval 0.0524 to 0.3339 excludes zero; the
    // score test of two proportions gives z = 2.65, p = 0.008: the hybrid interval agrees closely.
    const p = newcombePValue(56 / 70, 70, 48 / 80, 80);
    expect(p).toBeGreaterThan(0.005);
    expect(p).toBeLessThan(0.012);
    const touching = newcombeDifference(56 / 70, 70, 48 / 80, 80, zOfTwoSided(p));
    expect(touching.low).toBeCloseTo(0, 9);
    // A fall is judged on the interval's high end, and the same shares swapped give the same p.
    const fall = newcombePValue(48 / 80, 80, 56 / 70, 70);
    expect(fall).toBeCloseTo(p, 12);
    expect(newcombeDifference(48 / 80, 80, 56 / 70, 70, zOfTwoSided(fall)).high).toBeCloseTo(0, 9);
    expect(newcombePValue(0.4, 600, 0.4, 600)).toBe(1);
  });

  it('is below α exactly when the (1 − α) interval excludes zero', () => {
    for (const [after, before, n] of [
      [0.42, 0.4, 240],
      [0.47, 0.4, 240],
      [0.3, 0.4, 600],
      [0.05, 0.01, 200],
    ] as const) {
      const p = newcombePValue(after, n, before, n);
      for (const alpha of [0.001, 0.01, 0.05, 0.2]) {
        const interval = newcombeDifference(after, n, before, n, zOfTwoSided(alpha));
        const excludes = interval.low > 0 || interval.high < 0;
        expect(excludes, `${after} vs ${before} on ${n}, α ${alpha}, p ${p}`).toBe(p < alpha);
      }
    }
  });
});

describe('Benjamini–Hochberg and Holm', () => {
  // p.adjust(c(0.01, 0.04, 0.03, 0.005), "BH") = 0.02 0.04 0.04 0.02; "holm" = 0.03 0.06 0.06 0.02.
  const p = [0.01, 0.04, 0.03, 0.005];

  it('adjust p-values as the textbooks do', () => {
    expect(benjaminiHochberg(p).map((q) => +q.toFixed(10))).toEqual([0.02, 0.04, 0.04, 0.02]);
    expect(holm(p).map((q) => +q.toFixed(10))).toEqual([0.03, 0.06, 0.06, 0.02]);
    // Ten p-values: m·p/rank = 0.01, 0.04, 0.13, 0.1025, 0.084, … → the step-up minimum.
    const ten = [0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216];
    expect(benjaminiHochberg(ten).map((q) => +q.toFixed(4))).toEqual([
      0.01, 0.04, 0.084, 0.084, 0.084, 0.1, 0.1057, 0.216, 0.216, 0.216,
    ]);
    expect(holm([0.2, 0.9])).toEqual([0.4, 0.9]);
    expect(holm([0.7, 0.9])).toEqual([1, 1]);
  });

  it('draw each interval at a level that agrees with the verdict', () => {
    const ten = [0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216];
    const bh = judgeFamily(ten, 0.05, 'benjamini-hochberg');
    expect(bh.map((v) => v.likely)).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    // Two likely of ten: every interval at 1 − 2·0.05/10 = 99 %; 0.008 lies below 0.01, 0.039 above.
    expect(bh.every((v) => Math.abs(v.intervalAlpha - 0.01) < 1e-12)).toBe(true);
    const h = judgeFamily(p, 0.05, 'holm');
    expect(h.map((v) => v.likely)).toEqual([true, false, false, true]);
    // Two likely of four: 1 − 0.05/(4 − 2) = 97.5 %; 0.01 lies below 0.025, 0.03 above.
    expect(h[0]!.intervalAlpha).toBeCloseTo(0.025, 12);
    // None likely: Bonferroni's level, and every p above it.
    expect(judgeFamily([0.2, 0.3], 0.05, 'benjamini-hochberg')[0]!.intervalAlpha).toBeCloseTo(0.025, 12);
    expect(judgeFamily([], 0.05, 'holm')).toEqual([]);
  });

  it('judge measured changes together: a change likely alone can be unclear among many', () => {
    // 47 % against 40 % on 600 answers each: p ≈ 0.014, likely alone, not among 12.
    const change = measureChange({ value: 40, n: 600 }, { value: 47, n: 600 }, 'percent', true);
    const quiet = measureChange({ value: 40, n: 600 }, { value: 40.5, n: 600 }, 'percent', true);
    const unknown = measureChange({ value: 60 }, { value: 70 }, 'score', false);
    const [alone] = judgeTogether([change]);
    expect(alone).toMatchObject({ significance: 'likely', familySize: 1, level: 0.95 });
    const many = judgeTogether([change, ...Array<typeof quiet>(11).fill(quiet), unknown]);
    expect(many[0]).toMatchObject({ significance: 'unclear', familySize: 12 });
    expect(many[0]!.low!).toBeLessThan(0);
    expect(many[0]!.q!).toBeCloseTo(Math.min(1, 12 * change.p!), 9);
    expect(many[12]).toMatchObject({ significance: 'unknown', familySize: null, p: null, low: null });
  });
});
