import type { SetRecord } from '../dataset.js';
import { setShape } from './shape.js';
import type { Answer } from './simulate.js';

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
  /** Engine indices that cite the domain, and distinct pages cited. */
  engines: Set<number>;
  urls: Set<number>;
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

export function tallyAnswers(set: SetRecord, answers: readonly Answer[]): RunTally {
  const shape = setShape(set.def);
  const scopes = (n: number) => Array.from({ length: n }, () => new ScopeTally());
  const competitors = set.competitors.length;
  const tally: RunTally = {
    overall: new ScopeTally(),
    engines: scopes(shape.engines),
    intents: scopes(shape.intents),
    cells: scopes(shape.engines * shape.intents),
    competitorMentions: new Array(competitors).fill(0),
    competitorMentionsByEngine: Array.from({ length: shape.engines }, () => new Array(competitors).fill(0)),
    competitorRecommended: new Array(competitors).fill(0),
    otherMentions: 0,
    othersNamed: 0,
    competitorsNamed: 0,
    branded: 0,
    brandFirst: 0,
    sources: set.sources.map(() => ({ citations: 0, engines: new Set<number>(), urls: new Set<number>() })),
  };
  const others = new Set<number>();
  const own = set.sources.map((s) => s.control !== 'external');
  for (const a of answers) {
    let references = false;
    for (const c of a.citations) if (own[c.source]) references = true;
    tally.overall.add(a, references);
    tally.engines[a.engine]!.add(a, references);
    tally.intents[a.intent]!.add(a, references);
    tally.cells[a.engine * shape.intents + a.intent]!.add(a, references);
    for (const c of a.competitors) {
      tally.competitorMentions[c]!++;
      tally.competitorMentionsByEngine[a.engine]![c]!++;
    }
    for (const c of a.recommends) tally.competitorRecommended[c]!++;
    tally.otherMentions += a.others.length;
    for (const o of a.others) others.add(o);
    if (a.named || a.competitors.length > 0 || a.others.length > 0) tally.branded++;
    if (a.position === 1) tally.brandFirst++;
    for (const c of a.citations) {
      const source = tally.sources[c.source]!;
      source.citations++;
      source.engines.add(a.engine);
      source.urls.add(c.url);
    }
  }
  tally.othersNamed = others.size;
  tally.competitorsNamed = tally.competitorMentions.filter((n) => n > 0).length;
  return tally;
}
