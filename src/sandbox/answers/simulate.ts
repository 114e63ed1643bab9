import type { SetRecord } from '../dataset/records.js';
import { hashSeed, mulberry32 } from '../rng.js';
import { pick, type RunRates } from './rates.js';
import { setShape } from './shape.js';

/**
 * One run's answers, drawn from its rates: every query asked once of every engine (a few answers
 * fail), or exactly `answers` answers spread evenly over the cells when a published run pins that
 * count. Every figure the sandbox serves is counted from these answers (tally.ts), so aggregates and
 * their breakdowns agree by construction. Two seeded streams per (set, run): one decides which answers
 * name the brand, the other everything else, so a run's draws never depend on request order.
 */
export interface Answer {
  /** Engine index (into `def.engineIds`) and intent index (into `def.intents`) of the answer. */
  engine: number;
  intent: number;
  named: boolean;
  /** Where the brand is named among the brands of the answer: 1, 2, 3 or 4 (for 4+); 0 when not named. */
  position: number;
  /** Index into STANCES when named, −1 otherwise. */
  stance: number;
  /** Indices into the set's listed competitors that the answer names, and those it recommends. */
  competitors: number[];
  recommends: number[];
  /** Indices (0 .. otherCompetitors − 1) of the other competitors the answer names. */
  others: number[];
  /** Cited sources (indices into `set.sources`), and which of that domain's pages, pairwise. */
  sources: number[];
  urls: number[];
  /** States a verified fact about the brand (G+) / a wrong one (G−). */
  gPlus: boolean;
  gMinus: boolean;
}

/** How a published run pins its answers: their number, and how many name the brand. */
export interface AnswerPin {
  answers?: number;
  /** Given the run's number of answers, how many of them name the brand. */
  named?: (answers: number) => number;
}

/** About 5 of 1,200 answers fail in a run (timeouts, refusals): `totalAll` is rarely round. */
const FAILURE_RATE = 0.004;

/**
 * Draws the run's answers and hands each to `visit`, in cell order. The answer object is reused from
 * one answer to the next (a run has thousands, and only their counts are kept): copy what you keep.
 */
export function simulateRun(
  set: SetRecord,
  i: number,
  rates: RunRates,
  pin: AnswerPin,
  visit: (answer: Readonly<Answer>) => void,
): void {
  const shape = setShape(set.def);
  const cellCount = shape.queries * shape.engines;
  const draw = mulberry32(hashSeed(set.def.id, 'answers', i));
  const cells = new Int32Array(pin.answers ?? cellCount);
  let count = 0;
  if (pin.answers !== undefined) {
    for (let k = 0; k < pin.answers; k++) cells[count++] = Math.floor((k * cellCount) / pin.answers);
  } else {
    for (let cell = 0; cell < cellCount; cell++) if (draw() >= FAILURE_RATE) cells[count++] = cell;
  }
  const margin = new Float64Array(count);
  for (let k = 0; k < count; k++) margin[k] = draw() - rates.presence[cells[k]!]!;
  const named = pin.named ? exactlyNamed(margin, pin.named(count)) : null;
  const next = mulberry32(hashSeed(set.def.id, 'details', i));
  const answer: Answer = {
    engine: 0,
    intent: 0,
    named: false,
    position: 0,
    stance: -1,
    competitors: [],
    recommends: [],
    others: [],
    sources: [],
    urls: [],
    gPlus: false,
    gMinus: false,
  };
  for (let k = 0; k < count; k++) {
    drawAnswer(answer, set, rates, cells[k]!, named ? named[k] === 1 : margin[k]! < 0, next);
    visit(answer);
  }
}

/**
 * The `count` answers likeliest to name the brand (smallest draw − chance) name it: the same as
 * sampling with every chance moved by one common amount, chosen so the total comes out exactly.
 */
function exactlyNamed(margin: Float64Array, count: number): Uint8Array {
  const order = Array.from(margin.keys()).sort((a, b) => margin[a]! - margin[b]! || a - b);
  const named = new Uint8Array(margin.length);
  for (const k of order.slice(0, Math.max(0, count))) named[k] = 1;
  return named;
}

/** Fills `a` with the answer of one cell: the brands it names, in which order and tone, what it cites. */
function drawAnswer(
  a: Answer,
  set: SetRecord,
  rates: RunRates,
  cell: number,
  named: boolean,
  r: () => number,
) {
  const shape = setShape(set.def);
  const engine = cell % shape.engines;
  a.engine = engine;
  a.intent = shape.intentOf[Math.floor(cell / shape.engines)]!;
  a.named = named;
  a.competitors.length = 0;
  a.recommends.length = 0;
  a.others.length = 0;
  a.sources.length = 0;
  a.urls.length = 0;
  const competitorRates = rates.competitors[engine]!;
  for (let c = 0; c < competitorRates.length; c++) if (r() < competitorRates[c]!) a.competitors.push(c);
  for (let o = 0; o < set.def.otherCompetitors; o++) if (r() < rates.other) a.others.push(o);
  a.position = 0;
  a.stance = -1;
  if (named) {
    // How prominently this answer puts the brand varies from answer to answer around the engine's habit.
    const before = 2 * rates.ahead[engine]! * r();
    let ahead = 0;
    for (let k = 0; k < a.competitors.length + a.others.length; k++) if (r() < before) ahead++;
    a.position = Math.min(4, ahead + 1);
    a.stance = pick(rates.stance[engine * shape.intents + a.intent]!, r());
  }
  for (const c of a.competitors) if (r() < rates.recommends[c]!) a.recommends.push(c);
  a.gPlus = named && r() < rates.gPlus[engine]!;
  a.gMinus = named && r() < rates.gMinus[engine]!;
  const weights = named ? rates.sources.named : rates.sources.unnamed;
  const cited = Math.floor(r() * (2 * rates.cites[engine]! + 1));
  for (let k = 0; k < cited; k++) {
    const source = pick(weights, r());
    a.sources.push(source);
    a.urls.push(Math.floor(r() ** 2 * urlPool(set, source)));
  }
}

/** Pages a domain has to be cited from: a few, more for popular domains. */
export const urlPool = (set: SetRecord, source: number) =>
  2 + Math.floor((set.sources[source]?.weight ?? 0) / 3);
