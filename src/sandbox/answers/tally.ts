import type { SetRecord } from '../dataset/records.js';
import type { RunRates } from './rates.js';
import { setShape } from './shape.js';
import { type Answer, type AnswerPin, simulateRun, urlPool } from './simulate.js';

/**
 * Counts of one run's answers, for the whole run and for each breakdown (engine, intent, engine ×
 * intent). Every figure the sandbox serves is a ratio of these counts, so an overall figure is the
 * answer-weighted mean of its engines' (or intents') and counts add up across a breakdown.
 */
export class ScopeTally {
  answers = 0;
  named = 0;
  /** Answers naming the brand at position 1, 2, 3, 4+. */
  positions = [0, 0, 0, 0];
  /** Sum of position weights (weighted presence): naming the brand first counts most. */
  weight = 0;
  /** Answers naming the brand per stance (STANCES order). */
  stances = [0, 0, 0, 0, 0];
  gPlus = 0;
  gMinus = 0;
  /** Answers citing at least one domain the brand owns or partners with. */
  references = 0;

  add(answer: Answer, referencesBrand: boolean): void {
    this.answers++;
    if (referencesBrand) this.references++;
    if (!answer.named) return;
    this.named++;
    this.positions[answer.position - 1]!++;
    this.weight += POSITION_WEIGHTS[answer.position - 1]!;
    this.stances[answer.stance]!++;
    if (answer.gPlus) this.gPlus++;
    if (answer.gMinus) this.gMinus++;
  }
}

/** What naming the brand at position 1, 2, 3, 4+ counts towards weighted presence. */
export const POSITION_WEIGHTS = [1, 0.7, 0.45, 0.25];

export interface SourceTally {
  citations: number;
  /** How many engines cite the domain, and how many of its pages are cited. */
  engines: number;
  urls: number;
}

export interface RunTally {
  overall: ScopeTally;
  engines: ScopeTally[];
  intents: ScopeTally[];
  /** Engine index × intents + intent index. */
  cells: ScopeTally[];
  /** Per listed competitor: answers naming it, per engine too, and answers recommending it. */
  competitorMentions: number[];
  competitorMentionsByEngine: number[][];
  competitorRecommended: number[];
  /** Mentions of the other competitors, and how many distinct ones were named. */
  otherMentions: number;
  othersNamed: number;
  competitorsNamed: number;
  /** Answers naming at least one brand (the brand or a competitor); those naming the brand first. */
  branded: number;
  brandFirst: number;
  sources: SourceTally[];
}

/** Simulates run `i` (simulate.ts) and counts its answers. */
export function tallyRun(set: SetRecord, i: number, rates: RunRates, pin: AnswerPin): RunTally {
  const shape = setShape(set.def);
  const scopes = (n: number) => Array.from({ length: n }, () => new ScopeTally());
  const competitors = set.competitors.length;
  const overall = new ScopeTally();
  const engines = scopes(shape.engines);
  const intents = scopes(shape.intents);
  const cells = scopes(shape.engines * shape.intents);
  const competitorMentions = new Array<number>(competitors).fill(0);
  const competitorMentionsByEngine = engines.map(() => new Array<number>(competitors).fill(0));
  const competitorRecommended = new Array<number>(competitors).fill(0);
  const othersNamed = new Uint8Array(set.def.otherCompetitors);
  let otherMentions = 0;
  let branded = 0;
  let brandFirst = 0;
  const own = set.sources.map((s) => s.control !== 'external');
  const citations = new Array<number>(set.sources.length).fill(0);
  const citingEngines = set.sources.map(() => new Uint8Array(shape.engines));
  const citedUrls = set.sources.map((_, k) => new Uint8Array(urlPool(set, k)));

  simulateRun(set, i, rates, pin, (a) => {
    let references = false;
    for (const source of a.sources) if (own[source]) references = true;
    overall.add(a, references);
    engines[a.engine]!.add(a, references);
    intents[a.intent]!.add(a, references);
    cells[a.engine * shape.intents + a.intent]!.add(a, references);
    for (const c of a.competitors) {
      competitorMentions[c]!++;
      competitorMentionsByEngine[a.engine]![c]!++;
    }
    for (const c of a.recommends) competitorRecommended[c]!++;
    otherMentions += a.others.length;
    for (const o of a.others) othersNamed[o] = 1;
    if (a.named || a.competitors.length > 0 || a.others.length > 0) branded++;
    if (a.position === 1) brandFirst++;
    for (let k = 0; k < a.sources.length; k++) {
      const source = a.sources[k]!;
      citations[source]!++;
      citingEngines[source]![a.engine] = 1;
      citedUrls[source]![a.urls[k]!] = 1;
    }
  });

  const ones = (flags: Uint8Array) => flags.reduce((n, f) => n + f, 0);
  return {
    overall,
    engines,
    intents,
    cells,
    competitorMentions,
    competitorMentionsByEngine,
    competitorRecommended,
    otherMentions,
    othersNamed: ones(othersNamed),
    competitorsNamed: competitorMentions.filter((n) => n > 0).length,
    branded,
    brandFirst,
    sources: citations.map((n, k) => ({
      citations: n,
      engines: ones(citingEngines[k]!),
      urls: ones(citedUrls[k]!),
    })),
  };
}
