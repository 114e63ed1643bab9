import { isAggregateCompetitor } from '../../insight/aggregate-competitor.js';
import { currentLocale, t } from '../../locale/locale.js';
import type { DeltaView } from '../format.js';
import type { GravityModel } from './gravity.js';
import type { OverviewModel, ShareRow } from './overview.js';
import type { PresenceModel } from './presence.js';

/** The sections of the report model the story is told from (report/model/index.ts builds it after them). */
type StorySections = { presence: PresenceModel; gravity: GravityModel; overview: OverviewModel };

/**
 * The story of a run: three to five sentences built from the model's own rows, never from a
 * language model. Every number in them is a text the document's cards and tables already print
 * (values and deltas are copied, not reformatted), so a reader finds each one again below.
 * Order: where the brand stands, the largest likely changes (or that there are none), open false
 * claims by engine, a share-of-voice overtake involving the brand (a ranking, said to be unjudged),
 * and the largest change that is no clear change. Verdicts are the report's own (family.ts): the
 * story judges nothing itself, so it never calls likely what the tables below call unclear.
 */

const MAX_SENTENCES = 5;
const MAX_LIKELY = 2;

interface Candidate {
  /** One of the headline figures (presence.weighted, presence.gross): their likely changes lead. */
  headline?: boolean;
  metric: string;
  /** What a headline card's change is measured against ("vs previous run"). */
  versus?: string;
  dimension: string;
  value: string;
  delta: DeltaView;
}

/**
 * Weighted presence by engine and by intent. Only the engines' changes are judged (the payloads give
 * no answers per intent), so an intent's change is never quoted as likely or unclear.
 */
function candidates(model: Pick<StorySections, 'presence'>): Candidate[] {
  const metric = t('endpoint.presence.weighted');
  const out: Candidate[] = [];
  for (const card of [model.presence.weighted, model.presence.gross])
    if (card.available)
      out.push({
        headline: true,
        metric: card.kpi.label,
        dimension: '',
        value: card.kpi.value,
        delta: card.kpi.delta,
        // A card's change says what it is measured against (`compare_with`), as the card does.
        versus: card.kpi.versus ?? t('kpi.vsPrevious'),
      });
  if (model.presence.byEngine.available)
    for (const row of model.presence.byEngine.rows)
      out.push({ metric, dimension: row.engine.label, value: row.weighted.text, delta: row.delta });
  if (model.presence.byIntent.available)
    for (const row of model.presence.byIntent.rows)
      out.push({ metric, dimension: row.label, value: row.weighted.text, delta: row.deltaW });
  return out;
}

const bySize = (a: Candidate, b: Candidate) => (b.delta.size ?? 0) - (a.delta.size ?? 0);

/** The headline family's likely changes first, then the largest likely changes elsewhere. */
const headlineFirst = (a: Candidate, b: Candidate) =>
  Number(b.headline ?? false) - Number(a.headline ?? false) || bySize(a, b);

/**
 * The brand and a competitor that swapped places in share of voice since `before` (the run the
 * cards compare with): the brand's own overtakes matter most, so only pairs with the brand count.
 */
function overtake(now: readonly ShareRow[], before: readonly ShareRow[]): string | undefined {
  const rank = new Map(before.map((row, i) => [row.name, i]));
  const brand = now.findIndex((row) => row.isBrand);
  if (brand < 0) return undefined;
  const was = rank.get(now[brand]?.name ?? '');
  if (was === undefined) return undefined;
  for (const [i, row] of now.entries()) {
    const other = rank.get(row.name);
    // "Other competitors (4)" is many brands summed: passing it is no overtake.
    if (i === brand || other === undefined || isAggregateCompetitor(row.name)) continue;
    const [winner, loser] = i < brand ? [row, now[brand]] : [now[brand], row];
    const swapped = i < brand ? other > was : other < was;
    if (swapped && winner && loser)
      return t('story.overtake', {
        winner: winner.name,
        loser: loser.name,
        winnerShare: winner.text,
        loserShare: loser.text,
      });
  }
  return undefined;
}

/** The run the story compares with: its shares, and its false claims when its register was stored. */
export interface StoryBefore {
  shares: readonly ShareRow[];
  /** `claimKeys` of that run's register; absent when there is no such run or its register is missing. */
  claims?: ReadonlySet<string>;
}

type ErrorItem = Extract<StorySections['gravity']['errors'], { available: true }>['items'][number];

/** One false claim per engine and error: the same claim in two runs has the same key. */
export const claimKeys = (item: ErrorItem): string[] =>
  item.wrong.map((claim) => `${item.id}\u0000${claim.engine.id}\u0000${claim.text}`);

/** A judged change as the story says it: the metric, its member, the change and its interval. */
const judgedSentence = (key: 'story.likelyChange' | 'story.unclearChange', c: Candidate) =>
  t(c.dimension === '' && key === 'story.likelyChange' ? 'story.likelyHeadline' : key, {
    metric: c.metric,
    dimension: c.dimension,
    delta: c.versus ? `${c.delta.text} ${c.versus}` : c.delta.text,
    interval: c.delta.interval ?? '',
    value: c.value,
  });

export function buildStory(
  model: Pick<StorySections, 'presence' | 'gravity' | 'overview'>,
  before: StoryBefore = { shares: [] },
): string[] {
  const sharesBefore = before.shares;
  const sentences: string[] = [];
  const headline = (card: StorySections['presence']['weighted'] | StorySections['gravity']['plus']) => {
    if (!card.available) return;
    const { label, value, delta, versus } = card.kpi;
    // A value the service sent out of range ("—") is no place to stand: the card's note says why.
    if (value === '—') return;
    // The change says what it is measured against, as the card does: a reader of a report that
    // compares with 4 weeks back must not take it for the change since the previous run.
    // Without a change it still says why when the card does ("no stored run that old").
    const verdict = delta.verdict ? `, ${t(`verdict.${delta.verdict}`)}` : '';
    const change = delta.available ? `${delta.text} ${versus ?? t('kpi.vsPrevious')}${verdict}` : versus;
    sentences.push(
      change
        ? t('story.headline', { metric: label, value, delta: change })
        : t('story.headlineAlone', { metric: label, value }),
    );
  };
  const all = candidates(model).filter((c) => c.delta.available && c.delta.direction !== 'flat');
  // Only changes the report judged likely count: one it could not judge is never called likely. They
  // lead the story, so it never opens on an unclear figure while a likely one goes unmentioned.
  const likely = all.filter((c) => c.delta.verdict === 'likely').sort(headlineFirst);
  const leading = likely.filter((c) => c.headline);
  const elsewhere = likely.filter((c) => !c.headline);
  const told = [...leading, ...elsewhere.slice(0, Math.max(1, MAX_LIKELY - leading.length))];
  for (const c of told) sentences.push(judgedSentence('story.likelyChange', c));
  // Where the brand stands, unless a likely change of weighted presence has just said it.
  const weighted = model.presence.weighted;
  if (!(weighted.available && leading.some((c) => c.delta === weighted.kpi.delta))) headline(weighted);
  if (likely.length === 0) sentences.push(t('story.noLikelyChange'));
  const candidatesLeft = all.filter((c) => !c.headline);

  const errors = model.gravity.errors;
  const open = model.gravity.openErrors;
  if (errors.available && open.available) {
    const list = (names: string[]) =>
      new Intl.ListFormat(currentLocale().tag, { type: 'conjunction' }).format(names);
    const enginesOf = (items: readonly ErrorItem[]) => [
      ...new Set(items.flatMap((item) => item.wrong.map((w) => w.engine.label))),
    ];
    if (before.claims) {
      // Against the run compared with: only claims it did not have are new (an engine, an error, a text).
      const claims = before.claims;
      const fresh = errors.items.map((item) => ({
        ...item,
        wrong: item.wrong.filter((_, i) => !claims.has(claimKeys(item)[i]!)),
      }));
      const engines = enginesOf(fresh);
      sentences.push(
        engines.length > 0
          ? t('story.newFalseClaims', { count: open.kpi.value, engines: list(engines) })
          : t('story.noNewFalseClaims', { count: open.kpi.value }),
      );
    } else {
      const engines = enginesOf(errors.items);
      if (engines.length > 0)
        sentences.push(t('story.falseClaims', { count: open.kpi.value, engines: list(engines) }));
    }
  }

  const competitive = model.overview.competitive;
  const passed = competitive.available ? overtake(competitive.rows, sharesBefore) : undefined;
  if (passed) sentences.push(passed);

  const unclear = candidatesLeft.filter((c) => c.delta.verdict === 'unclear').sort(bySize)[0];
  if (unclear) sentences.push(judgedSentence('story.unclearChange', unclear));

  // Too little to say: the second headline card keeps the story at its three sentences.
  if (sentences.length < 3) headline(model.gravity.plus);
  return sentences.slice(0, MAX_SENTENCES);
}
