import { HOSTILE } from '../dataset.js';
import { figures, type MetricContext, type MetricHandler, windowRuns } from './context.js';

/** A short narrative like the dashboard's, quoting the very numbers the cards show. */
function summary(ctx: MetricContext) {
  const def = ctx.set.def;
  const run = windowRuns(ctx).at(-1)!;
  const now = figures(ctx, ctx.end);
  const gross = now.overall.gross;
  const prev = ctx.end > 0 ? figures(ctx, ctx.end - 1).overall.gross : gross;
  const leader = now.shares.find((s) => !s.isBrand && !s.name.startsWith('Other competitors'));
  const life = now.overall.life;
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
  'competitive-context': (ctx) => {
    const now = figures(ctx, ctx.end);
    return { dStar: now.market.dStar, fairShare: now.fairShare, shares: now.shares };
  },
};
