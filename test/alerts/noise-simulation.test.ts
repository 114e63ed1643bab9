import { describe, expect, it } from 'vitest';
import { evaluateRules, type RunFacts } from '../../src/alerts/evaluate.js';
import { alert } from '../../src/config/alert-section.js';
import { factRow } from './fact-rows.js';

/**
 * What the noise fence buys, by simulation: pairs of runs whose gross presence is drawn from a known
 * rate on 600 answers each, evaluated by a default change rule (which fires only on real changes).
 * With no true change, at most 5 % of the pairs may alert; with a true drop of 10 points, at least
 * 80 % must. A seeded generator keeps the figures the same on every machine; they are printed so the
 * README can quote them.
 */

const N = 600;
const PAIRS = 1000;

/** mulberry32: small, fast and good enough for Bernoulli draws. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const row = factRow;

/** A run as the API reports it: the share in percent with one decimal, and its answers. */
function drawRun(runId: number, rate: number, random: () => number): RunFacts {
  let hits = 0;
  for (let i = 0; i < N; i++) if (random() < rate) hits++;
  const percent = Math.round((hits / N) * 1000) / 10;
  return {
    runId,
    label: `Run ${runId}`,
    rows: [
      row('presence.gross', 'current', percent, 'percent'),
      row('presence.position-distribution', 'totalAll', N, 'count'),
    ],
  };
}

const rules = (list: unknown[]) =>
  alert.parse({ name: 'sim', rules: list, email: { to: ['cmo@example.com'] } }).rules;

function fireRate(before: number, after: number, ruleList: unknown[], seed: number): number {
  const random = generator(seed);
  const parsed = rules(ruleList);
  let fired = 0;
  for (let i = 0; i < PAIRS; i++) {
    const pair = [drawRun(1, before, random), drawRun(2, after, random)];
    if (evaluateRules(parsed, pair).firings.length > 0) fired++;
  }
  return fired / PAIRS;
}

describe('change rules against sampling noise (n = 600 per run)', () => {
  // Any drop of a point or more: without the fence a third of identical pairs would alert.
  const touchy = [{ metric: 'presence.gross', change: '<= -1' }];

  it('alert on at most 5 % of 1,000 pairs drawn from one rate', () => {
    const falseAlerts = fireRate(0.4, 0.4, touchy, 26);
    const unfenced = fireRate(0.4, 0.4, [{ ...touchy[0], significant: false }], 26);
    console.log(
      `noise simulation: false alerts ${(falseAlerts * 100).toFixed(1)} % (significant: false ${(unfenced * 100).toFixed(1)} %)`,
    );
    expect(falseAlerts).toBeLessThanOrEqual(0.05);
    // The same pairs without the fence: the rule alone would fire on many of them.
    expect(unfenced).toBeGreaterThan(0.2);
  });

  it('alert on at least 80 % of 1,000 pairs with a true drop of 10 points', () => {
    const detected = fireRate(0.4, 0.3, [{ metric: 'presence.gross', change: '<= -5' }], 27);
    console.log(`noise simulation: detection of a 10-point drop ${(detected * 100).toFixed(1)} %`);
    expect(detected).toBeGreaterThanOrEqual(0.8);
  });
});
