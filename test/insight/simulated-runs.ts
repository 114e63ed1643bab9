import type { ReportSnapshot } from '../../src/report/model/snapshot.js';
import { mulberry32 } from '../../src/sandbox/rng.js';

/**
 * Runs of a query set drawn from known rates, answer by answer, shaped as the API's payloads: what a
 * report of the run judges (presence overall, per engine and per intent, positions, stance shares,
 * Gravity+ and Gravity−) comes from one simulated set of answers, so every figure is consistent with
 * its parts. Two runs drawn from the same rates are a quiet world: any "likely change" between them
 * is a false one. Seeded: the same seed gives the same runs on every machine.
 */

/** A seeded uniform generator in [0, 1) (the sandbox's mulberry32). */
export const generator = mulberry32;

export interface Rates {
  /** Chance an engine's answer names the brand, per engine. */
  presence: readonly number[];
  /** Chance of rank 1, 2, 3, 4+ when named. */
  positions: readonly number[];
  /** Chance of recommended, advised-not-favoured, neutral, cautious, negative when named. */
  stances: readonly number[];
  /** Chance an answer carries a favourable (Gravity+) or an unfavourable (Gravity−) source. */
  gravityPlus: number;
  gravityMinus: number;
}

export const QUIET_RATES: Rates = {
  presence: [0.45, 0.38, 0.52, 0.3, 0.41],
  positions: [0.36, 0.25, 0.15, 0.24],
  stances: [0.4, 0.15, 0.3, 0.1, 0.05],
  gravityPlus: 0.35,
  gravityMinus: 0.08,
};

/** How much a named answer counts towards weighted presence, by rank. */
const RANK_WEIGHT = [1, 0.7, 0.45, 0.2];
/** Queries per intent: uneven, as real intents are (240 in all). */
export const INTENT_SIZES = [12, 28, 36, 44, 56, 64];

interface Tally {
  answers: number;
  named: number;
  weight: number;
  positions: number[];
  stances: number[];
  plus: number;
  minus: number;
}

const tally = (): Tally => ({
  answers: 0,
  named: 0,
  weight: 0,
  positions: [0, 0, 0, 0],
  stances: [0, 0, 0, 0, 0],
  plus: 0,
  minus: 0,
});

function pick(random: () => number, chances: readonly number[]): number {
  let u = random();
  for (let i = 0; i < chances.length - 1; i++) {
    u -= chances[i]!;
    if (u < 0) return i;
  }
  return chances.length - 1;
}

/** One run's answers, tallied overall, per engine and per intent. */
export interface RunTally {
  all: Tally;
  engines: Tally[];
  intents: Tally[];
}

/** Draws one run: every query (`queriesPerIntent`, 240 by default) asked once of every engine. */
export function drawRun(
  rates: Rates,
  random: () => number,
  queriesPerIntent: readonly number[] = INTENT_SIZES,
): RunTally {
  const run: RunTally = {
    all: tally(),
    engines: rates.presence.map(tally),
    intents: queriesPerIntent.map(tally),
  };
  for (const [intent, queries] of queriesPerIntent.entries())
    for (let q = 0; q < queries; q++)
      for (const [engine, presence] of rates.presence.entries()) {
        const named = random() < presence;
        const position = named ? pick(random, rates.positions) : -1;
        const stance = named ? pick(random, rates.stances) : -1;
        const plus = random() < rates.gravityPlus;
        const minus = random() < rates.gravityMinus;
        for (const t of [run.all, run.engines[engine]!, run.intents[intent]!]) {
          t.answers++;
          if (named) {
            t.named++;
            t.weight += RANK_WEIGHT[position]!;
            t.positions[position]!++;
            t.stances[stance]!++;
          }
          if (plus) t.plus++;
          if (minus) t.minus++;
        }
      }
  return run;
}

/** A percent as the API sends it: one decimal. */
const pct = (part: number, whole: number) => Math.round((part / Math.max(whole, 1)) * 1000) / 10;
const frac = (part: number, whole: number) => Math.round((part / Math.max(whole, 1)) * 1000) / 1000;
const gross = (t: Tally) => pct(t.named, t.answers);
const weighted = (t: Tally) => pct(t.weight, t.answers);

const ENGINES = ['ChatGPT', 'Perplexity', 'Gemini', 'Claude', 'Copilot'].map((label, i) => ({
  id: 3 + 2 * i,
  label,
  color: '#336699',
  image: 'x.png',
}));

/**
 * The payloads of the run `after` as the API would publish them, deltas against `before` (the run
 * before it): every endpoint whose figures reportd judges, each from the same answers.
 */
export function payloadsOf(after: RunTally, before: RunTally): Record<string, unknown> {
  const delta = (now: number, then: number) => Math.round((now - then) * 10) / 10;
  const card = (now: number, then: number) => ({
    current: now,
    delta: delta(now, then),
    history: [then, now],
    historyLabels: ['Week 1', 'Week 2'],
  });
  const stance = (i: number) =>
    card(pct(after.all.stances[i]!, after.all.named), pct(before.all.stances[i]!, before.all.named));
  const stanceSet = (t: Tally) => ({
    recommended: frac(t.stances[0]!, t.named),
    advisedNotFavored: frac(t.stances[1]!, t.named),
    neutral: frac(t.stances[2]!, t.named),
    cautious: frac(t.stances[3]!, t.named),
    negative: frac(t.stances[4]!, t.named),
  });
  const positions = (t: Tally) => ({
    p1: frac(t.positions[0]!, t.named),
    p2: frac(t.positions[1]!, t.named),
    p3: frac(t.positions[2]!, t.named),
    p4plus: frac(t.positions[3]!, t.named),
  });
  const engines = ENGINES.slice(0, after.engines.length);
  const perEngine = <T>(value: (now: Tally, then: Tally) => T) =>
    Object.fromEntries(engines.map((e, i) => [String(e.id), value(after.engines[i]!, before.engines[i]!)]));
  const intents = after.intents.map((_, i) => ({
    id: 41 + i,
    label: `Intent ${i + 1}`,
    stage: 'consideration',
    icv: 100,
  }));
  return {
    'presence.gross': card(gross(after.all), gross(before.all)),
    'presence.weighted': {
      ...card(weighted(after.all), weighted(before.all)),
      fairShare: 0.2,
      dStar: 1.1,
      classification: 'challenger',
    },
    'presence.position-distribution': {
      ...positions(after.all),
      totalAnswers: after.all.named,
      totalAll: after.all.answers,
      prev: positions(before.all),
    },
    'presence.position-distribution-by-engine': {
      engines: engines.map(({ id, label, color }, i) => ({
        id,
        label,
        color,
        timesCited: after.engines[i]!.named,
        ...positions(after.engines[i]!),
        deltaTimesCited: after.engines[i]!.named - before.engines[i]!.named,
      })),
      totals: {
        timesCited: after.all.named,
        ...positions(after.all),
        deltaTimesCited: after.all.named - before.all.named,
      },
    },
    'presence.by-engine': {
      engines,
      presenceByEngine: perEngine((now, then) => ({
        weighted: weighted(now),
        gross: gross(now),
        delta: delta(weighted(now), weighted(then)),
      })),
    },
    'presence.by-intent': {
      intents,
      presenceByIntent: Object.fromEntries(
        after.intents.map((t, i) => [
          String(41 + i),
          {
            weighted: weighted(t),
            gross: gross(t),
            deltaW: delta(weighted(t), weighted(before.intents[i]!)),
            deltaG: delta(gross(t), gross(before.intents[i]!)),
          },
        ]),
      ),
    },
    'life.recommended-share': stance(0),
    'life.neutral-share': stance(2),
    'life.negative-share': stance(4),
    'life.stance-mix': { ...stanceSet(after.all), engineCount: engines.length, prev: stanceSet(before.all) },
    'life.by-engine': {
      engines,
      lifeByEngine: perEngine((now) => {
        const s = stanceSet(now);
        return {
          life: 55,
          delta: 0,
          stance: {
            rec: s.recommended,
            adv: s.advisedNotFavored,
            neu: s.neutral,
            cau: s.cautious,
            neg: s.negative,
          },
        };
      }),
    },
    'gravity.gravity-plus': card(
      pct(after.all.plus, after.all.answers),
      pct(before.all.plus, before.all.answers),
    ),
    'gravity.gravity-minus': card(
      pct(after.all.minus, after.all.answers),
      pct(before.all.minus, before.all.answers),
    ),
    'gravity.by-engine': {
      engines,
      gravityByEngine: perEngine((now) => ({
        gPlus: frac(now.plus, now.answers),
        gMinus: frac(now.minus, now.answers),
        gravityPlus: pct(now.plus, now.answers),
        gravityMinus: pct(now.minus, now.answers),
      })),
    },
  };
}

/**
 * The run `after` as a stored snapshot of the simulated set, its deltas against `before`; only the
 * payloads `keys` names when given (a report built from fewer payloads is built faster).
 */
export function snapshotOf(
  after: RunTally,
  before: RunTally,
  keys?: readonly string[],
  id = 2,
): ReportSnapshot {
  return {
    id,
    account: 'sim',
    brand: { id: 1, name: 'Acme' },
    querySet: { id: 101, name: 'Simulated set', details: null },
    run: { id, display_name: `Week ${id}`, created_at: `2026-01-${String(id).padStart(2, '0')}T00:00:00Z` },
    state: 'complete',
    completedAt: null,
    payloads: Object.fromEntries(
      Object.entries(payloadsOf(after, before))
        .filter(([key]) => !keys || keys.includes(key))
        .map(([key, data]) => [key, { data, error: null }]),
    ),
  };
}
