import { z } from 'zod';
import { ToolInputError } from '../../errors/index.js';
import { setDetailsOf } from '../../insight/run-changes.js';
import { runInsight } from '../../insight/run-insight.js';
import type { InsightRow } from '../../insight/sample-sizes.js';
import { judgedInRun, judgedOut, NOT_COMPARED, rowKey } from '../judged.js';
import { findSet, metricRowsOf, metricTitle, runRange, type StoredSet, snapshotRows } from '../reads.js';
import { answer, defineTool, runOut, setInput, unitOut } from '../tool-parts.js';

const DIMENSIONS = [
  'engine',
  'intent',
  'competitor',
  'source',
  'category',
  'stance',
  'engine_intent',
] as const;
const MAX_POINTS = 2000;

/** `metric_series`: one metric across runs, each point judged against the run before it. */
export const metricSeriesTool = defineTool({
  name: 'metric_series',
  title: "A metric's series across runs",
  description:
    'One metric of a query set over its runs, oldest first, with its unit: overall, or broken down by ' +
    'engine, intent, competitor… (by), optionally one label only. Runs: from_run_id..to_run_id, or the ' +
    `newest last_runs (default 12, at most 100). Metric names come from list_metrics (e.g. presence.weighted.current, presence.by-engine.weighted with by=engine).`,
  inputSchema: {
    ...setInput,
    metric: z.string().min(3).describe('endpoint key and field, e.g. presence.weighted.current'),
    by: z.enum(DIMENSIONS).optional().describe('Breakdown; omit for the overall value'),
    label: z
      .string()
      .optional()
      .describe('Only this engine, intent, competitor… (its label, e.g. Perplexity)'),
    from_run_id: z.number().int().positive().optional(),
    to_run_id: z.number().int().positive().optional(),
    last_runs: z.number().int().positive().optional().describe('The newest N runs (at most 100)'),
  },
  outputSchema: {
    query_set_id: z.number(),
    metric: z.string(),
    title: z.string(),
    unit: unitOut,
    by: z.string().nullable(),
    runs: z.number(),
    points: z.array(
      runOut
        .extend({
          label: z.string().nullable().describe('The engine, intent… of the point; null when overall'),
          value: z.number().describe('Exactly as the API published it, in `unit`'),
          ...judgedOut,
        })
        .describe('The change and its significance are against the stored run just before this one'),
    ),
    truncated: z
      .boolean()
      .describe(`True when more than ${MAX_POINTS} points matched: narrow the runs or give a label`),
  },
  annotations: { readOnlyHint: true },
  handler: async (args, { store }) => {
    const set = await findSet(store, args.query_set_id, args.account);
    // Endpoint keys are `group.name`; the rest is the field, dotted itself at times (stance.rec).
    const parts = args.metric.split('.');
    const endpoint = parts.slice(0, 2).join('.');
    const field = parts.slice(2).join('.');
    const { runs, before } = await runRange(store, set, args);
    const dimension = args.by ?? '';
    const points: Record<string, unknown>[] = [];
    let seen = false;
    const breakdowns = new Set<string>();
    let unitOf = 'unknown';
    // Each point is judged against the run before it, the first against the run before the range, in
    // that run's own family (every figure of the two runs, as its report and export judge them): an
    // answer on one metric never judges it in a smaller family than the run's.
    const read = [...(before ? [before] : []), ...runs].map((r) => r.snapshot_id);
    const bySnapshot = await metricRowsOf(store, read, endpoint, field);
    const details = await setDetailsOf(store, set.account, set.query_set_id);
    const runOf = async (snapshotId: number) => ({
      all: await snapshotRows(store, snapshotId),
      rows: new Map((bySnapshot.get(snapshotId) ?? []).map((r) => [rowKey(r), r])),
    });
    let previous = before ? await runOf(before.snapshot_id) : undefined;
    for (const run of runs) {
      const current = await runOf(run.snapshot_id);
      const earlier = previous;
      previous = current;
      const shown: InsightRow[] = [];
      for (const row of current.rows.values()) {
        seen = true;
        breakdowns.add(row.dimension);
        unitOf = row.unit;
        if (row.dimension !== dimension) continue;
        if (args.label !== undefined && row.dimension_label !== args.label) continue;
        shown.push(row);
      }
      const insight = earlier && shown.length > 0 ? runInsight(earlier.all, current.all, details) : undefined;
      const judged = shown.map((row) =>
        insight && earlier ? judgedInRun(insight, row, earlier.rows.get(rowKey(row))) : NOT_COMPARED,
      );
      for (const [i, row] of shown.entries()) {
        if (points.length >= MAX_POINTS) break;
        points.push({
          run_id: run.run_id,
          run: run.run,
          run_created_at: run.run_created_at,
          label: dimension === '' ? null : row.dimension_label,
          value: row.value,
          ...judged[i]!,
        });
      }
    }
    checkFound(args, set, { seen, breakdowns, dimension, points });
    return answer({
      query_set_id: set.query_set_id,
      metric: args.metric,
      title: metricTitle({ endpoint, field }),
      unit: unitOf,
      by: args.by ?? null,
      runs: runs.length,
      points,
      truncated: points.length >= MAX_POINTS,
    });
  },
});

/** A tool error when the metric is not in these runs, or not by the breakdown asked for: it names what is. */
function checkFound(
  args: { metric: string },
  set: StoredSet,
  found: { seen: boolean; breakdowns: Set<string>; dimension: string; points: unknown[] },
): void {
  const { seen, breakdowns, dimension, points } = found;
  if (!seen)
    throw new ToolInputError(
      `metric "${args.metric}" is not stored for query set ${set.query_set_id} in these runs (see list_metrics)`,
    );
  if (points.length === 0 && !breakdowns.has(dimension)) {
    const has = [...breakdowns].map((d) => (d === '' ? 'overall (omit by)' : `by=${d}`)).join(', ');
    throw new ToolInputError(
      `metric "${args.metric}" has no ${dimension === '' ? 'overall value' : `breakdown by ${dimension}`}: it has ${has}`,
    );
  }
}
