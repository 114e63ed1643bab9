import { engineById } from '../dataset/catalog.js';
import { isOpen } from '../dataset/error-register.js';
import type { SetRecord } from '../dataset/records.js';
import { type WalkSpec, walk } from '../dataset/walk.js';
import { clamp, signedUnit, unit } from '../rng.js';
import { logit, setShape, sigmoid } from './shape.js';

/**
 * The chances behind one run's answers. The demo's rates drift from run to run (bounded random walks
 * on the log-odds scale, so history series trend and wobble); in a quiet world (`quiet`) they are the
 * same in every run, and runs differ only by sampling. A published fall (`SetRecord.shifts`) takes
 * points off every cell's chance of naming the brand from its run on.
 */
export interface RunRates {
  /** Chance an answer names the brand, per cell (query × engines + engine index). */
  presence: Float64Array;
  /** Per engine: chance that each other brand an answer names is put before the brand. */
  ahead: number[];
  /** Per engine × intent (engine index × intents + intent index): cumulative stance chances. */
  stance: Float64Array[];
  /** Per engine, per listed competitor: chance an answer names it. */
  competitors: number[][];
  /** Chance an answer names one given brand of the "other competitors". */
  other: number;
  /** Per listed competitor: chance that an answer naming it recommends it. */
  recommends: number[];
  /** Per engine: chance an answer naming the brand states a verified fact (G+) / a wrong one (G−). */
  gPlus: number[];
  gMinus: number[];
  /** Per engine: mean number of sources an answer cites. */
  cites: number[];
  /** Cumulative weights over `set.sources`, for answers naming the brand and for the others. */
  sources: { named: Float64Array; unnamed: Float64Array };
}

/** Up to ±1.5 points per run at 40 %, with a per-address trend of about 0.4 points per run. */
const DRIFT: WalkSpec = { lo: -0.08, hi: 0.08, drift: 0.015, step: 0.06, min: -1.5, max: 1.5, decimals: 4 };

/** Recommended, advised but not favoured, neutral, cautious, negative: the mix before engine effects. */
const STANCE_BASE = [0.35, 0.18, 0.29, 0.08, 0.05];

/** Owned and partner domains are cited far more often in answers that name the brand. */
const OWN_BOOST = { named: 4, unnamed: 0.4 };

/** Points the changes published up to run `i` add to the brand's presence rate (a fall is negative; they last). */
export function shiftAt(set: SetRecord, i: number): number {
  let total = 0;
  for (const [index, points] of set.shifts) if (index <= i) total += points;
  return total;
}

/**
 * What sets a set's engines, intents and competitors apart, independent of the run: hashed once per
 * set definition (the hashes are the expensive part of a run's rates).
 */
interface SetTraits {
  /** Per engine × intent (engine index × intents + intent index), per stance: a log factor. */
  stance: number[][];
  ahead: number[];
  /** Per engine, per listed competitor: a log factor on the chance of naming it. */
  competitors: number[][];
  recommends: number[];
  gPlus: number[];
  gMinus: number[];
  cites: number[];
}

const traits = new WeakMap<SetRecord['def'], SetTraits>();

function setTraits(set: SetRecord): SetTraits {
  const def = set.def;
  const known = traits.get(def);
  if (known) return known;
  const engines = def.engineIds;
  const intents = setShape(def).intents;
  const stance: number[][] = [];
  for (const e of engines) {
    for (let k = 0; k < intents; k++) {
      const intentId = def.intents[k]?.id ?? k;
      stance.push(
        STANCE_BASE.map(
          (_, s) =>
            0.3 * signedUnit(def.id, 'stance', s, e) +
            0.3 * signedUnit(def.id, 'stance', s, 'intent', intentId),
        ),
      );
    }
  }
  const made: SetTraits = {
    stance,
    ahead: engines.map((e) => logit(0.45) + 0.4 * signedUnit(def.id, 'ahead', e)),
    competitors: engines.map((e) => def.competitors.map((c) => 0.4 * signedUnit(def.id, 'comp', c.id, e))),
    recommends: def.competitors.map((c) => logit(0.2 + 0.2 * unit(def.id, 'recommends', c.id))),
    gPlus: engines.map((e) => logit(0.55 + 0.25 * unit(def.id, 'g+', e))),
    gMinus: engines.map((e) => 0.02 + 0.02 * unit(def.id, 'g-', e)),
    cites: engines.map((e) => engineById(e).citesPerAnswer * Math.exp(0.2 * signedUnit(def.id, 'cites', e))),
  };
  traits.set(def, made);
  return made;
}

export function runRates(set: SetRecord, i: number): RunRates {
  const def = set.def;
  const shape = setShape(def);
  const t = setTraits(set);
  const drift = (...key: Array<string | number>) =>
    set.quiet ? 0 : walk([def.id, 'rate', ...key], i, DRIFT);
  const engines = def.engineIds;
  const shift = shiftAt(set, i) / 100;

  const overall = drift('presence');
  const byEngine = engines.map((e) => drift('presence', e));
  const byIntent = Array.from({ length: shape.intents }, (_, k) => drift('presence', 'intent', k));
  const presence = new Float64Array(shape.logits.length);
  for (let cell = 0; cell < presence.length; cell++) {
    const e = cell % shape.engines;
    const intent = shape.intentOf[Math.floor(cell / shape.engines)]!;
    const x = shape.logits[cell]! + overall + byEngine[e]! + byIntent[intent]!;
    presence[cell] = clamp(sigmoid(x) + shift, 0.002, 0.998);
  }

  const stanceDrift = STANCE_BASE.map((_, k) => drift('stance', k));
  const recDrift = engines.map((e) => drift('stance', 'engine', e));
  const stance = t.stance.map((factors, cell) =>
    cumulative(
      STANCE_BASE.map(
        (w, s) =>
          w *
          Math.exp(
            factors[s]! + stanceDrift[s]! + (s === 0 ? recDrift[Math.floor(cell / shape.intents)]! : 0),
          ),
      ),
    ),
  );
  const competitorDrift = def.competitors.map((c) => drift('comp', c.id));

  return {
    presence,
    ahead: engines.map((e, k) => sigmoid(t.ahead[k]! + drift('ahead', e))),
    stance,
    competitors: t.competitors.map((factors) =>
      set.competitors.map((c, k) =>
        clamp(c.weight * 2.4 * Math.exp(factors[k]! + competitorDrift[k]!), 0, 0.85),
      ),
    ),
    other: 0.08 * Math.exp(drift('other')),
    recommends: set.competitors.map((c, k) => sigmoid(t.recommends[k]! + drift('recommends', c.id))),
    gPlus: engines.map((e, k) => sigmoid(t.gPlus[k]! + 2 * drift('g+', e))),
    gMinus: engines.map((e, k) => clamp(t.gMinus[k]! + 0.05 * openErrors(set, e, i), 0, 0.5)),
    cites: t.cites,
    sources: sourceWeights(set, i, drift),
  };
}

/** Wrong statements an engine makes in the run's open register entries: each makes G− likelier. */
function openErrors(set: SetRecord, engineId: number, i: number): number {
  return set.errors.filter((e) => isOpen(e, i) && e.wrong.some((w) => w.engine === engineId)).length;
}

function sourceWeights(
  set: SetRecord,
  i: number,
  drift: (...key: Array<string | number>) => number,
): RunRates['sources'] {
  const base = set.sources.map((s) => (i < s.from ? 0 : s.weight * Math.exp(2 * drift('source', s.name))));
  const own = (k: number) => set.sources[k]!.control !== 'external';
  return {
    named: cumulative(base.map((w, k) => (own(k) ? w * OWN_BOOST.named : w))),
    unnamed: cumulative(base.map((w, k) => (own(k) ? w * OWN_BOOST.unnamed : w))),
  };
}

function cumulative(weights: readonly number[]): Float64Array {
  const out = new Float64Array(weights.length);
  let sum = 0;
  weights.forEach((w, k) => {
    sum += w;
    out[k] = sum;
  });
  return out;
}

/** The index a uniform draw `u` in [0, 1) falls on, in cumulative weights. */
export function pick(cumulativeWeights: Float64Array, u: number): number {
  const target = u * (cumulativeWeights[cumulativeWeights.length - 1] ?? 0);
  for (let k = 0; k < cumulativeWeights.length; k++) if (target < cumulativeWeights[k]!) return k;
  return cumulativeWeights.length - 1;
}
