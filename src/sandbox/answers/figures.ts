import type { SetRecord } from '../dataset/records.js';
import type { SourceDef } from '../dataset/sources.js';
import { apportion, clamp, round } from '../rng.js';
import { monitoredShares, type Share, shareOfVoice } from './shares.js';
import type { RunTally, ScopeTally } from './tally.js';

/**
 * The figures of one run, as the payloads send them, computed from the run's tally. Scales (percent
 * vs fraction) follow the table in payloads/context.ts. Rounding is the only thing that can put an
 * overall figure outside the range of its breakdowns, and by at most one unit of its last decimal
 * (parts of a whole are apportioned so they sum exactly).
 */
export const STANCES = ['recommended', 'advisedNotFavored', 'neutral', 'cautious', 'negative'] as const;
export type Stance = Record<(typeof STANCES)[number], number>;
export interface Positions {
  p1: number;
  p2: number;
  p3: number;
  p4plus: number;
}

export interface ScopeFigures {
  answers: number;
  /** Answers naming the brand (`timesCited` per engine, `totalAnswers` overall). */
  named: number;
  /** Percent of answers naming the brand, and the same weighted by position. */
  gross: number;
  weighted: number;
  /** Fractions of the answers naming the brand (sum 1). */
  positions: Positions;
  stance: Stance;
  /** Life score 0..100 from the stance mix. */
  life: number;
  /** Percent of answers stating a verified / a wrong fact about the brand. */
  gravityPlus: number;
  gravityMinus: number;
  /** Percent of answers citing a domain the brand owns or partners with. */
  references: number;
}

export interface SourceFigures {
  def: SourceDef;
  citations: number;
  engines: number;
  urls: number;
}

export interface RunFigures {
  overall: ScopeFigures;
  /** By engine id and intent id. */
  engines: Map<number, ScopeFigures>;
  intents: Map<number, ScopeFigures>;
  /** Gross presence by `${engineId}:${intentId}`. */
  cells: Map<string, number>;
  positiveNegativeRatio: number;
  market: {
    dStar: number;
    tBar: number;
    totalResponses: number;
    responsesWithBrands: number;
    responsesWithoutBrands: number;
    uniqueBrands: number;
  };
  fairShare: number;
  shares: Share[];
  monitored: Share[];
  /** Cited domains only, in definition order. */
  sources: SourceFigures[];
  sourceDistribution: { owned: number; partner: number; external: number };
  /** Per engine id: answers naming each listed competitor (index into the set's competitors). */
  competitorMentions: Map<number, number[]>;
}

export const percent = (count: number, of: number) => (of > 0 ? round((100 * count) / of, 1) : 0);

export function scopeFigures(t: ScopeTally): ScopeFigures {
  const [p1 = 0, p2 = 0, p3 = 0, p4plus = 0] = apportion(t.positions, 1, 3);
  const mix = apportion(t.stances, 1, 3);
  const stance = Object.fromEntries(STANCES.map((k, s) => [k, mix[s] ?? 0])) as Stance;
  const [rec = 0, adv = 0, neu = 0, , neg = 0] = t.stances;
  // Linear in the stance counts, so an overall life is the named-weighted mean of its breakdown's.
  const life =
    t.named > 0 ? round(clamp((100 * (rec + 0.6 * adv + 0.35 * neu - 0.5 * neg)) / t.named, 0, 100), 1) : 0;
  return {
    answers: t.answers,
    named: t.named,
    gross: percent(t.named, t.answers),
    weighted: percent(t.weight, t.answers),
    positions: { p1, p2, p3, p4plus },
    stance,
    life,
    gravityPlus: percent(t.gPlus, t.answers),
    gravityMinus: percent(t.gMinus, t.answers),
    references: percent(t.references, t.answers),
  };
}

export function runFiguresOf(set: SetRecord, tally: RunTally): RunFigures {
  const def = set.def;
  const { overall } = tally;
  const [rec = 0, adv = 0, , cau = 0, neg = 0] = overall.stances;
  const mentions = overall.named + tally.competitorMentions.reduce((a, b) => a + b, 0) + tally.otherMentions;
  const uniqueBrands = (overall.named > 0 ? 1 : 0) + tally.competitorsNamed + tally.othersNamed;
  const sources = set.sources
    .map((s, k) => ({ def: s, ...tally.sources[k]! }))
    .filter((s) => s.citations > 0);
  const byControl = (control: string) =>
    sources.filter((s) => s.def.control === control).reduce((sum, s) => sum + s.citations, 0);
  const [owned = 0, partner = 0, external = 0] = apportion(
    [byControl('owned'), byControl('partner'), byControl('external')],
    100,
    1,
  );
  return {
    overall: scopeFigures(overall),
    engines: new Map(def.engineIds.map((id, e) => [id, scopeFigures(tally.engines[e]!)])),
    intents: new Map(def.intents.map((it, k) => [it.id, scopeFigures(tally.intents[k]!)])),
    cells: new Map(
      def.engineIds.flatMap((id, e) =>
        def.intents.map((it, k) => {
          const cell = tally.cells[e * def.intents.length + k]!;
          return [`${id}:${it.id}`, percent(cell.named, cell.answers)] as const;
        }),
      ),
    ),
    positiveNegativeRatio: round((rec + adv) / Math.max(1, cau + neg), 2),
    market: {
      dStar: tally.branded > 0 ? round(tally.brandFirst / tally.branded, 3) : 0,
      tBar: tally.branded > 0 ? round(mentions / tally.branded, 2) : 0,
      totalResponses: overall.answers,
      responsesWithBrands: tally.branded,
      responsesWithoutBrands: overall.answers - tally.branded,
      uniqueBrands,
    },
    fairShare: uniqueBrands > 0 ? round(1 / uniqueBrands, 3) : 0,
    shares: shareOfVoice(set, tally),
    monitored: monitoredShares(set, tally),
    sources,
    sourceDistribution: { owned, partner, external },
    competitorMentions: new Map(def.engineIds.map((id, e) => [id, tally.competitorMentionsByEngine[e]!])),
  };
}
