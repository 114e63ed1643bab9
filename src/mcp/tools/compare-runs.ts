import { z } from 'zod';
import { ToolInputError } from '../../errors/index.js';
import type { MetricChange } from '../../insight/changes.js';
import { metricName as readableName } from '../../insight/metric-names.js';
import { setDetailsOf } from '../../insight/run-changes.js';
import { runInsight } from '../../insight/run-insight.js';
import { judgedFields, judgedOut } from '../judged.js';
import { findRun, findSet, metricName, setRuns, snapshotRows } from '../reads.js';
import { answer, defineTool, runOut, setInput } from '../tool-parts.js';

/** A change on one scale across units: shares in percentage points, other numbers relative, in percent. */
function weight(change: MetricChange): number {
  const { unit, before, after } = change;
  if (unit === 'percent') return Math.abs(after - before);
  if (unit === 'fraction') return Math.abs(after - before) * 100;
  return before === 0 ? (after === 0 ? 0 : 100) : Math.abs((after - before) / before) * 100;
}

/** Judged changes first (likely, then unclear), each by size; then the ones not judged, by size. */
const RANK: Readonly<Record<MetricChange['significance'], number>> = {
  likely: 0,
  unclear: 1,
  unknown: 2,
  invalid: 3,
};
const moversFirst = (a: MetricChange, b: MetricChange) =>
  RANK[a.significance] - RANK[b.significance] || weight(b) - weight(a);

/** `compare_runs`: two runs side by side, the numbers that moved most first. */
export const compareRunsTool = defineTool({
  name: 'compare_runs',
  title: 'Compare two runs: the movers',
  description:
    'Every metric of a query set in two runs side by side: likely changes first, then unclear ones, ' +
    'each by size (shares by percentage points, other numbers by relative change), then changes not ' +
    'judged. Verdicts are those of the run as a whole (one family), whatever metric_prefix narrows. ' +
    'Defaults: the newest run against the one before it. Narrow with metric_prefix (e.g. presence. or life.by-engine).',
  inputSchema: {
    ...setInput,
    base_run_id: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('The earlier run; default: the run before run_id'),
    run_id: z.number().int().positive().optional().describe('The later run; default: the newest'),
    metric_prefix: z.string().optional(),
    limit: z.number().int().min(1).max(100).default(20),
  },
  outputSchema: {
    query_set_id: z.number(),
    base: runOut,
    run: runOut,
    compared: z.number().describe('Metrics present in both runs (levels only: no change-of-change fields)'),
    family: z
      .object({ size: z.number(), likely: z.number(), of: z.string() })
      .describe(
        'The family every q of this answer comes from: the whole run, never just the metrics asked for',
      ),
    movers: z.array(
      z.object({
        metric: z.string(),
        title: z.string().describe('What a person calls it, e.g. Gross presence on ChatGPT'),
        breakdown: z.string().nullable(),
        label: z.string().nullable(),
        unit: z.string(),
        before: z.number(),
        after: z.number(),
        ...judgedOut,
      }),
    ),
    left_out: z.number().describe('Changed metrics not listed because of limit'),
    unchanged: z.number(),
  },
  annotations: { readOnlyHint: true },
  handler: async (args, { store }) => {
    const set = await findSet(store, args.query_set_id, args.account);
    const runs = await setRuns(store, set);
    if (runs.length < 2)
      throw new ToolInputError(`query set ${set.query_set_id} has fewer than two complete runs stored`);
    const run = args.run_id === undefined ? runs[0]! : await findRun(store, set, runs, args.run_id);
    const base =
      args.base_run_id === undefined
        ? runs[runs.indexOf(run) + 1]
        : await findRun(store, set, runs, args.base_run_id);
    if (!base)
      throw new ToolInputError(
        `run ${run.run_id} is the oldest stored run of query set ${set.query_set_id}: give base_run_id`,
      );
    const prefix = args.metric_prefix ?? '';
    // Both runs whole: the run's changes are judged as its own document (every figure, one family,
    // as the export and the reports judge them); a prefix only picks which of them to show, so a
    // narrower question never shrinks the family a q comes from.
    const baseRows = await snapshotRows(store, base.snapshot_id);
    const runRows = await snapshotRows(store, run.snapshot_id);
    const details = await setDetailsOf(store, set.account, set.query_set_id);
    const insight = runInsight(baseRows, runRows, details);
    const compared = insight.changes.filter((c) => metricName(c).startsWith(prefix));
    const moved = compared.filter((c) => c.before !== c.after).sort(moversFirst);
    const out = (r: typeof run) => ({ run_id: r.run_id, run: r.run, run_created_at: r.run_created_at });
    const family = insight.summary();
    const shown = moved.slice(0, args.limit);
    return answer({
      query_set_id: set.query_set_id,
      base: out(base),
      run: out(run),
      compared: compared.length,
      family: {
        size: family.size,
        likely: family.likely,
        of: `every judged figure of run ${run.run_id} against run ${base.run_id}, whatever metric_prefix asks`,
      },
      movers: shown.map((change) => ({
        metric: metricName(change),
        title: readableName(change),
        breakdown: change.dimension || null,
        label: change.dimension_label,
        unit: change.unit,
        before: change.before,
        after: change.after,
        ...judgedFields(change),
      })),
      left_out: moved.length - shown.length,
      unchanged: compared.length - moved.length,
    });
  },
});
