import type { SetRecord } from '../dataset/records.js';
import { percent, type RunFigures, runFiguresOf } from './figures.js';
import { runRates } from './rates.js';
import type { AnswerPin } from './simulate.js';
import { tallyRun } from './tally.js';

/** Gross presence a set's first published run is compared with when it carries a `grossChange`. */
const GROSS_BEFORE_FIRST_RUN = 40;

/**
 * The figures of run `i` of a set: its answers simulated and counted once, then remembered on the set
 * (a run's answers never change once published; `publishRun` only adds runs). History series are the
 * earlier runs' figures, so a card's history is what the earlier runs' cards said.
 */
export function runFigures(set: SetRecord, i: number): RunFigures {
  let cached = figuresOf.get(set);
  if (!cached) {
    cached = new Map();
    figuresOf.set(set, cached);
  }
  const known = cached.get(i);
  if (known) return known;
  const key = sharedKey(set, i);
  const figures =
    (key && shared.get(key)) || runFiguresOf(set, tallyRun(set, i, runRates(set, i), answerPin(set, i)));
  if (key) shared.set(key, figures);
  cached.set(i, figures);
  return figures;
}

/** Each set's run figures once computed; a published run only adds entries. */
const figuresOf = new WeakMap<SetRecord, Map<number, RunFigures>>();

/**
 * The runs a data set starts with are the same in every sandbox of the process with the same options
 * (publications only add later runs, and whatever they change starts at their own run), so tests that
 * start many sandboxes count each of them once. Published runs stay with their data set.
 */
const shared = new Map<string, RunFigures>();
const sharedKey = (set: SetRecord, i: number) =>
  i < set.def.runs ? `${set.def.id}|${set.quiet}|${set.hostile}|${i}` : undefined;

/**
 * A published run's pin: its number of answers, and — with a `grossChange` — how many name the brand,
 * so the run's gross presence is the previous run's plus the change to within one answer (a fall
 * never comes out smaller than asked, a rise never smaller either). Which answers, engines and intents
 * carry the change is left to sampling.
 */
function answerPin(set: SetRecord, i: number): AnswerPin {
  const pin = set.pins.get(i);
  if (!pin) return {};
  const change = pin.grossChange;
  if (change === undefined) return { answers: pin.answers };
  const before = i > 0 ? runFigures(set, i - 1).overall.gross : GROSS_BEFORE_FIRST_RUN;
  const target = Math.max(0, Math.min(100, before + change));
  return { answers: pin.answers, named: (answers) => namedFor(target, change, answers) };
}

/**
 * How many of `answers` must name the brand for a gross presence (one decimal) of `target`: the
 * nearest count whose printed percent is not short of the target in the direction of the change.
 */
export function namedFor(target: number, change: number, answers: number): number {
  const printed = (k: number) => percent(k, answers);
  let k = Math.round((target / 100) * answers);
  if (change < 0) {
    while (k > 0 && printed(k) > target) k--;
    while (k < answers && printed(k + 1) <= target) k++;
  } else if (change > 0) {
    while (k < answers && printed(k) < target) k++;
    while (k > 0 && printed(k - 1) >= target) k--;
  }
  return k;
}
