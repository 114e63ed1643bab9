import * as m from '../dataset/metrics.js';
import { competitiveShares } from '../dataset/shares.js';
import { grossAt, HOSTILE } from '../dataset.js';
import { type MetricContext, type MetricHandler, windowRuns } from './context.js';

const shareContext = (ctx: MetricContext) => ({
  set: ctx.set.def,
  brand: ctx.set.brand,
  competitors: ctx.set.competitors,
});

/** A short narrative like the dashboard's, built from the same numbers the cards show. */
function summary(ctx: MetricContext) {
  const def = ctx.set.def;
  const run = windowRuns(ctx).at(-1)!;
  // The card's own numbers (grossAt: pinned runs and published movements included), so a run
  // published with a movement does not say "up" beside a card that fell.
  const gross = grossAt(ctx.set, ctx.end);
  const prev = ctx.end > 0 ? grossAt(ctx.set, ctx.end - 1) : gross;
  const shares = competitiveShares(shareContext(ctx), ctx.end);
  const leader = shares.find((s) => !s.isBrand && !s.name.startsWith('Other competitors'));
  const life = m.lifeScore(def, ctx.end);
  const trend = gross > prev ? 'up' : gross < prev ? 'down' : 'flat';
  const paragraphs = [
    `In ${run.display_name}, ${ctx.set.brand.name} appeared in ${gross}% of AI answers across ` +
      `${def.engineIds.length} engines (${trend} from ${prev}% the run before).`,
    leader
      ? `${leader.name} remains the most visible competitor with a ${Math.round(leader.share * 100)}% share of voice.`
      : 'No competitor reached a notable share of voice.',
    `Sentiment is ${life >= 60 ? 'favourable' : 'mixed'}: the Life score stands at ${life}.`,
  ];
  if (ctx.ds.hostile) paragraphs.push(`Imported note: ${HOSTILE.summaryHtml}`);
  return { content: paragraphs.join('\n\n') };
}

export const overviewHandlers: Record<string, MetricHandler> = {
  summary,
  'competitive-context': (ctx) => ({
    dStar: m.dStar(ctx.set.def, ctx.end),
    fairShare: m.fairShare(ctx.set.def, ctx.end),
    shares: competitiveShares(shareContext(ctx), ctx.end),
  }),
};

export { shareContext };
