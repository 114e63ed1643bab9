import { describe, expect, it } from 'vitest';
import { evaluateRules } from '../../src/alerts/evaluate.js';
import type { FactRow, RunFacts } from '../../src/alerts/run-facts.js';
import { alert } from '../../src/config/alert-section.js';
import { factRow } from './fact-rows.js';

/**
 * Each rule kind on hand-made runs (oldest first, the run under evaluation last). The evaluation is
 * pure (no clock, no store), so these are the "fake clock" tests of the issue: what fires depends on
 * the runs given, never on when the test runs.
 */

const rules = (list: unknown[]) =>
  alert.parse({ name: 'a', rules: list, email: { to: ['cmo@example.com'] } }).rules;

const row = factRow;

const run = (runId: number, rows: FactRow[], extra: Partial<RunFacts> = {}): RunFacts => ({
  runId,
  label: `Week ${runId}`,
  rows,
  ...extra,
});

/** The answers of a run: what the noise model reads the sample size from. */
const answers = (n: number) => row('presence.position-distribution', 'totalAll', n, 'count');
const gross = (id: number, value: number) =>
  run(id, [row('presence.gross', 'current', value, 'percent'), answers(1200)]);

describe('change rules', () => {
  it('fire on a drop in points against the previous run, with before/after and the change in the unit', () => {
    const result = evaluateRules(rules([{ metric: 'presence.gross', change: '<= -5' }]), [
      gross(1, 40),
      gross(2, 34.5),
    ]);
    expect(result.firings).toHaveLength(1);
    const firing = result.firings[0]!;
    expect(firing).toMatchObject({
      kind: 'change',
      metric: 'presence.gross.current',
      before: '40.0%',
      after: '34.5%',
      change: '−5.5 pts',
    });
    expect(firing.headline).toContain(
      'Gross presence changed −5.5 pts against the previous run (likely change, p = 0.005; interval −10.1 to −0.9 pts at 98 %; n = 1,200 → 1,200 answers): 40.0% → 34.5%',
    );
    expect(firing).toMatchObject({
      metricName: 'Gross presence',
      significance: 'likely',
      familySize: 1,
      level: 0.98,
      n: { before: 1200, after: 1200 },
    });
    expect(firing.headline).not.toContain('presence.gross');
    expect(firing.series).toEqual([
      { label: 'Week 1', value: 40 },
      { label: 'Week 2', value: 34.5 },
    ]);
  });

  it('stay quiet when the change does not meet the condition', () => {
    expect(
      evaluateRules(rules([{ metric: 'presence.gross', change: '<= -5' }]), [gross(1, 40), gross(2, 36)])
        .firings,
    ).toEqual([]);
    expect(
      evaluateRules(rules([{ metric: 'presence.gross', change: '<= -5' }]), [gross(1, 40), gross(2, 50)])
        .firings,
    ).toEqual([]);
  });

  it('compare fraction metrics in points like percent ones', () => {
    const share = (id: number, v: number) => run(id, [row('presence.weighted', 'fairShare', v, 'fraction')]);
    // Fair share has no noise model: only a rule that opts out of the fence fires on it.
    const unfenced = [{ metric: 'presence.weighted.fairShare', change: '<= -5', significant: false }];
    expect(
      evaluateRules(rules([{ metric: 'presence.weighted.fairShare', change: '<= -5' }]), [
        share(1, 0.42),
        share(2, 0.35),
      ]).firings,
    ).toEqual([]);
    const result = evaluateRules(rules(unfenced), [share(1, 0.42), share(2, 0.35)]);
    expect(result.firings).toHaveLength(1);
    expect(result.firings[0]).toMatchObject({ before: '42.0%', after: '35.0%', change: '−7.0 pts' });
    // −0.04 as a fraction is −4 points: not past −5.
    expect(evaluateRules(rules(unfenced), [share(1, 0.42), share(2, 0.38)]).firings).toEqual([]);
  });

  it('read "%" as a change relative to the baseline, and mean_of_last_4 as the mean of the four runs before', () => {
    const weighted = (id: number, v: number) =>
      run(id, [row('presence.weighted', 'current', v, 'percent'), answers(1200)]);
    const relative = rules([{ metric: 'presence.weighted', change: '<= -10%', baseline: 'mean_of_last_4' }]);
    const previous = rules([{ metric: 'presence.weighted', change: '<= -10%' }]);
    // The data tells the baselines apart. Runs 2..5 average 57.5; the previous run (5) is 40; run 1 (10)
    // is outside the window. 48 is −16.5% against the mean (fires) but +20% against the previous run
    // (quiet), and a mean over five runs (48) would be no change at all.
    const dropFromMean = [
      weighted(1, 10),
      weighted(2, 70),
      weighted(3, 60),
      weighted(4, 60),
      weighted(5, 40),
      weighted(6, 48),
    ];
    const fired = evaluateRules(relative, dropFromMean).firings;
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ before: '57.5%', after: '48.0%' });
    expect(fired[0]!.headline).toContain('(−16.5%) against the mean of the last 4 runs');
    expect(evaluateRules(previous, dropFromMean).firings).toEqual([]);
    // And the other way round: runs 2..5 average 45, the previous run is 60; 50 is −16.7% against the
    // previous run (fires with the default baseline) but +11.1% against the mean (quiet).
    const dropFromPrevious = [
      weighted(1, 90),
      weighted(2, 40),
      weighted(3, 40),
      weighted(4, 40),
      weighted(5, 60),
      weighted(6, 50),
    ];
    expect(evaluateRules(relative, dropFromPrevious).firings).toEqual([]);
    const firedOnPrevious = evaluateRules(previous, dropFromPrevious).firings;
    expect(firedOnPrevious).toHaveLength(1);
    expect(firedOnPrevious[0]!.headline).toContain('(−16.7%) against the previous run');
  });
});

describe('the noise fence', () => {
  const share = (id: number, v: number, n: number) =>
    run(id, [row('presence.gross', 'current', v, 'percent'), answers(n)]);

  it('keeps a change with no clear change quiet by default, and lets significant: false fire on it', () => {
    // −6 points on 200 answers a run: the interval (about ±11 points at 98 %) contains zero.
    const history = [share(1, 40, 200), share(2, 34, 200)];
    expect(evaluateRules(rules([{ metric: 'presence.gross', change: '<= -5' }]), history).firings).toEqual(
      [],
    );
    const loose = evaluateRules(
      rules([{ metric: 'presence.gross', change: '<= -5', significant: false }]),
      history,
    ).firings;
    expect(loose).toHaveLength(1);
    expect(loose[0]).toMatchObject({ significance: 'unclear' });
    expect(loose[0]!.headline).toContain('(no clear change, p = 0.214; interval −17.0 to +5.2 pts at 98 %');
    // The same −6 points on 2,000 answers a run is a likely change.
    const likely = [share(1, 40, 2000), share(2, 34, 2000)];
    expect(
      evaluateRules(rules([{ metric: 'presence.gross', change: '<= -5' }]), likely).firings,
    ).toHaveLength(1);
  });

  it('judges the figures a rule watches in one run as one family (Holm)', () => {
    // Ten engines of 400 answers; one falls 10 points (p ≈ 0.004): likely alone, not among ten.
    const engines = (id: number, first: number) =>
      run(id, [
        answers(4000),
        ...Array.from({ length: 10 }, (_, e) =>
          row('presence.by-engine', 'gross', e === 0 ? first : 40, 'percent', ['engine', String(e), `E${e}`]),
        ),
      ]);
    const history = [engines(1, 50), engines(2, 40)];
    const perEngine = [{ metric: 'presence.by-engine.gross', per: 'engine', change: '<= -5' }];
    expect(evaluateRules(rules(perEngine), history).firings).toEqual([]);
    const loose = evaluateRules(rules([{ ...perEngine[0], false_alarm_rate: 0.05 }]), history).firings;
    expect(loose).toHaveLength(1);
    expect(loose[0]).toMatchObject({ member: 'E0', significance: 'likely', familySize: 10 });
    // Holm: one likely of ten, so every interval is drawn at 1 − 0.05/9.
    expect(loose[0]!.headline).toMatch(
      /\(likely change, q = 0\.0\d\d among 10 figures; interval −\d+\.\d to −\d\.\d pts at 99\.44 %/,
    );
    // Alone, the same fall is a likely change at the default rate.
    const alone = (id: number, v: number) =>
      run(id, [answers(400), row('presence.by-engine', 'gross', v, 'percent', ['engine', '0', 'E0'])]);
    expect(evaluateRules(rules(perEngine), [alone(1, 50), alone(2, 40)]).firings).toHaveLength(1);
  });

  it('with for_runs, fires once a step has held, never on a blip that reverts', () => {
    const rule = rules([{ metric: 'presence.gross', change: '<= -5', for_runs: 2 }]);
    const step = [share(1, 40, 2000), share(2, 40, 2000), share(3, 33, 2000), share(4, 33.5, 2000)];
    // Run 3 fell: not yet (one run after the step); run 4 held it against run 2: fires.
    expect(evaluateRules(rule, step.slice(0, 3)).firings).toEqual([]);
    const fired = evaluateRules(rule, step).firings;
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({
      before: '40.0%',
      after: '33.5%',
      forRuns: 2,
      comparedWith: { label: 'Week 2' },
    });
    expect(fired[0]!.headline).toContain('against run Week 2 in each of the last 2 runs (likely change');
    // It fires once: a run later the level held, but against run 3 nothing moved.
    expect(evaluateRules(rule, [...step, share(5, 33, 2000)]).firings).toEqual([]);
    // A blip that reverts never fires.
    const blip = [share(1, 40, 2000), share(2, 40, 2000), share(3, 33, 2000), share(4, 40, 2000)];
    expect(evaluateRules(rule, blip).firings).toEqual([]);
    // Too few runs stored: skipped, saying why.
    expect(evaluateRules(rule, step.slice(0, 2)).skipped[0]!.reason).toBe(
      'presence.gross: for_runs: 2 needs 3 stored runs, 2 stored so far',
    );
  });

  it('never calls a score likely: a Life change fires only with significant: false, and says why it did not', () => {
    const life = (id: number, v: number) => run(id, [row('life.kpi', 'current', v, 'score'), answers(5000)]);
    const quiet = evaluateRules(rules([{ metric: 'life.kpi', change: '<= -5' }]), [life(1, 60), life(2, 40)]);
    expect(quiet.firings).toEqual([]);
    expect(quiet.skipped[0]!.reason).toContain('the noise of this metric is unknown; add significant: false');
    const loud = evaluateRules(rules([{ metric: 'life.kpi', change: '<= -5', significant: false }]), [
      life(1, 60),
      life(2, 40),
    ]);
    expect(loud.firings[0]).toMatchObject({ significance: 'unknown', interval: null });
    expect(loud.firings[0]!.headline).toBe(
      'Life changed −20.0 against the previous run: 60.0 → 40.0 (rule: change <= -5)',
    );
  });
});

describe('value rules fire on crossing only', () => {
  const kpi = (id: number, v: number) => run(id, [row('life.kpi', 'current', v, 'score')]);
  const below45 = rules([{ metric: 'life.kpi', value: '< 45' }]);

  it('fire on the run that crosses the level', () => {
    const result = evaluateRules(below45, [kpi(1, 47), kpi(2, 44)]);
    expect(result.firings).toHaveLength(1);
    expect(result.firings[0]).toMatchObject({ kind: 'value', before: '47.0', after: '44.0' });
    expect(result.firings[0]!.headline).toBe('Life crossed < 45: 47.0 → 44.0');
  });

  it('stay quiet while the level stays crossed, and when it moves back', () => {
    expect(evaluateRules(below45, [kpi(1, 47), kpi(2, 44), kpi(3, 40)]).firings).toEqual([]);
    expect(evaluateRules(below45, [kpi(1, 40), kpi(2, 46)]).firings).toEqual([]);
  });

  it('read a level on a fraction metric in points', () => {
    const fair = (id: number, v: number) => run(id, [row('presence.weighted', 'fairShare', v, 'fraction')]);
    const result = evaluateRules(rules([{ metric: 'presence.weighted.fairShare', value: '< 30' }]), [
      fair(1, 0.31),
      fair(2, 0.29),
    ]);
    expect(result.firings).toHaveLength(1);
    expect(result.firings[0]).toMatchObject({ before: '31.0%', after: '29.0%' });
  });
});

describe('per: engine', () => {
  const engines = (id: number, chatgpt: number, gemini: number) =>
    run(id, [
      row('presence.by-engine', 'weighted', chatgpt, 'percent', ['engine', '3', 'ChatGPT']),
      row('presence.by-engine', 'weighted', gemini, 'percent', ['engine', '5', 'Gemini']),
      // Engines are counted on the field every one of them carries (gross), as the payloads give it.
      row('presence.by-engine', 'gross', 1, 'percent', ['engine', '3', 'ChatGPT']),
      row('presence.by-engine', 'gross', 1, 'percent', ['engine', '5', 'Gemini']),
      answers(2000),
    ]);

  it('checks each engine and names the one that moved, judged among the engines the rule watches', () => {
    const result = evaluateRules(
      rules([{ metric: 'presence.by-engine.weighted', per: 'engine', change: '<= -8' }]),
      [engines(1, 50, 40), engines(2, 41, 39)],
    );
    expect(result.firings).toHaveLength(1);
    expect(result.firings[0]).toMatchObject({
      member: 'ChatGPT',
      before: '50.0%',
      after: '41.0%',
      change: '−9.0 pts',
    });
    expect(result.firings[0]!.headline).toContain(
      'Weighted presence on ChatGPT changed −9.0 pts against the previous run (likely change, q = ',
    );
    expect(result.firings[0]!.headline).toContain(' among 2 figures; interval −');
    expect(result.firings[0]!.headline).toContain('n = 1,000 → 1,000 answers');
  });
});

describe('missing data', () => {
  it('an endpoint unavailable in either run fires nothing and says why', () => {
    const rule = rules([{ metric: 'presence.gross', change: '<= -5' }]);
    const empty = run(2, []);
    const now = evaluateRules(rule, [gross(1, 40), empty]);
    expect(now.firings).toEqual([]);
    expect(now.skipped).toEqual([
      { rule: 0, reason: 'presence.gross.current: no data in run Week 2 (endpoint unavailable)' },
    ]);
    const before = evaluateRules(rule, [run(1, []), gross(2, 10)]);
    expect(before.firings).toEqual([]);
    expect(before.skipped[0]!.reason).toBe(
      'presence.gross.current: no data in run Week 1 (endpoint unavailable)',
    );
    const events = evaluateRules(
      rules([{ event: 'new_error' }, { event: 'competitor_overtakes' }, { event: 'classification_change' }]),
      [run(1, [], { errors: [] }), run(2, [])],
    );
    expect(events.firings).toEqual([]);
    expect(events.skipped.map((s) => s.rule)).toEqual([0, 1, 2]);
  });

  it('a single stored run has nothing to compare with', () => {
    const result = evaluateRules(rules([{ metric: 'presence.gross', change: '<= -5' }]), [gross(1, 40)]);
    expect(result.firings).toEqual([]);
    expect(result.skipped[0]!.reason).toBe('no earlier stored run to compare with');
  });
});

describe('events', () => {
  const entry = (id: string, claim: string, engine: string) => ({
    id,
    title: `Title ${id}`,
    correct: `Correct ${id}`,
    claim,
    engine,
  });

  it('new_error: an entry never seen in an earlier run, with its claim, correct answer and engines', () => {
    const history = [
      run(1, [], { errors: [entry('GE-1', 'old claim', 'ChatGPT')] }),
      run(2, [], { errors: [entry('GE-1', 'old claim', 'ChatGPT')] }),
      run(3, [], {
        errors: [
          entry('GE-1', 'old claim', 'ChatGPT'),
          entry('GE-9', 'Northwind sells tea', 'ChatGPT'),
          entry('GE-9', 'Northwind sells tea', 'Gemini'),
        ],
      }),
    ];
    const result = evaluateRules(rules([{ event: 'new_error' }]), history);
    expect(result.firings).toHaveLength(1);
    expect(result.firings[0]!.errors).toEqual([
      {
        id: 'GE-9',
        title: 'Title GE-9',
        correct: 'Correct GE-9',
        claims: ['Northwind sells tea'],
        engines: ['ChatGPT', 'Gemini'],
      },
    ]);
    expect(result.firings[0]!.headline).toBe(
      'New error in the Gravity register: Title GE-9 — "Northwind sells tea"',
    );
    // An entry that disappeared and came back was seen before: not new.
    const back = [
      run(1, [], { errors: [entry('GE-9', 'x', 'ChatGPT')] }),
      run(2, [], { errors: [] }),
      run(3, [], { errors: [entry('GE-9', 'x', 'ChatGPT')] }),
    ];
    expect(evaluateRules(rules([{ event: 'new_error' }]), back).firings).toEqual([]);
  });

  it('competitor_overtakes: a competitor that was at or below the brand and is now above it', () => {
    const shares = (brand: number, acme: number) => [
      { name: 'Northwind', share: brand, isBrand: true },
      { name: 'Acme', share: acme, isBrand: false },
      { name: 'Other competitors (4)', share: 0.5, isBrand: false },
    ];
    const result = evaluateRules(rules([{ event: 'competitor_overtakes' }]), [
      run(1, [], { shares: shares(0.25, 0.2) }),
      run(2, [], { shares: shares(0.22, 0.24) }),
    ]);
    expect(result.firings.map((f) => f.headline)).toEqual([
      'Acme overtook Northwind: share 24.0% vs 22.0% (was 20.0% vs 25.0%; a change of rank, not judged against sampling noise)',
    ]);
    // Already ahead last run: not news again.
    expect(
      evaluateRules(rules([{ event: 'competitor_overtakes' }]), [
        run(1, [], { shares: shares(0.2, 0.25) }),
        run(2, [], { shares: shares(0.2, 0.26) }),
      ]).firings,
    ).toEqual([]);
  });

  it('classification_change: leader → challenger fires, the same class does not', () => {
    const result = evaluateRules(rules([{ event: 'classification_change' }]), [
      run(1, [], { classification: 'leader' }),
      run(2, [], { classification: 'challenger' }),
    ]);
    expect(result.firings.map((f) => f.headline)).toEqual(['Classification changed: leader → challenger']);
    expect(
      evaluateRules(rules([{ event: 'classification_change' }]), [
        run(1, [], { classification: 'leader' }),
        run(2, [], { classification: 'leader' }),
      ]).firings,
    ).toEqual([]);
  });
});

describe('compare_with on change rules', () => {
  const weekly = (id: number, value: number) =>
    run(id, [row('presence.gross', 'current', value, 'percent'), answers(1200)], {
      createdAt: new Date(Date.UTC(2026, 0, 5) + id * 7 * 86_400_000).toISOString(),
    });
  // A slow slide: 2 points a week is noise week on week, but 8 points over 4 weeks is real.
  const slide = [weekly(1, 50), weekly(2, 48), weekly(3, 46), weekly(4, 44), weekly(5, 42)];

  it('measure against the run 4 back or 4 weeks back, naming it; previous sees only the last step', () => {
    expect(evaluateRules(rules([{ metric: 'presence.gross', change: '<= -5' }]), slide).firings).toEqual([]);
    for (const compare_with of ['4 runs', '4 weeks']) {
      const result = evaluateRules(
        rules([{ metric: 'presence.gross', change: '<= -5', compare_with }]),
        slide,
      );
      expect(result.firings).toHaveLength(1);
      expect(result.firings[0]).toMatchObject({ before: '50.0%', after: '42.0%', change: '−8.0 pts' });
      expect(result.firings[0]!.headline).toContain(`against run Week 1 (${compare_with} back)`);
    }
  });

  it('skip, saying why, while no stored run is that old', () => {
    const result = evaluateRules(
      rules([{ metric: 'presence.gross', change: '<= -5', compare_with: '52 weeks' }]),
      slide,
    );
    expect(result.firings).toEqual([]);
    expect(result.skipped).toEqual([
      { rule: 0, reason: 'presence.gross: no stored run 52 weeks before this one' },
    ]);
  });
});
