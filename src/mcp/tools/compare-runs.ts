import { z } from 'zod';
import { ToolInputError } from '../../errors/index.js';
import { metricName as readableName } from '../../insight/metric-names.js';
import { setDetailsOf } from '../../insight/run-changes.js';
import { runSamples } from '../../insight/sample-sizes.js';
import { judgedOut, judgePairs, rowKey } from '../judged.js';
import { findRun, findSet, type MetricRow, metricName, setRuns, snapshotRows } from '../reads.js';
import { answer, defineTool, runOut, setInput } from '../tool-parts.js';

/** A change on one scale across units: shares in percentage points, other numbers relative, in percent. */
function weight(row: MetricRow, before: number, after: number): number {
  if (row.unit === 'percent') return Math.abs(after - before);
  if (row.unit === 'fraction') return Math.abs(after - before) * 100;
  return before === 0 ? (after === 0 ? 0 : 100) : Math.abs((after - before) / before) * 100;
}

/** `compare_runs`: two runs side by side, the numbers that moved most first. */
export const compareRunsTool = defineTool({
  name: 'compare_runs',
  title: 'Compare two runs: the movers',
  description:
    'Every metric of a query set in two runs side by side, the biggest movers first (shares by ' +
    'percentage points, other numbers by relative change). Defaults: the newest run against the one ' +
    'before it. Narrow with metric_prefix (e.g. presence. or life.by-engine).',
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
    compared: z.number().describe('Metrics present in both runs'),
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
    const keep = (row: MetricRow) => row.dimension !== 'measurement' && metricName(row).startsWith(prefix);
    // Both runs whole: the noise model reads their count rows for the n behind each share.
    const baseRows = await snapshotRows(store, base.snapshot_id);
    const runRows = await snapshotRows(store, run.snapshot_id);
    const details = await setDetailsOf(store, set.account, set.query_set_id);
    const samples = { before: runSamples(baseRows, details), after: runSamples(runRows, details) };
    const before = new Map(baseRows.filter(keep).map((r) => [rowKey(r), r]));
    const pairs = runRows.filter(keep).flatMap((row) => {
      const old = before.get(rowKey(row));
      return old ? [{ row, old }] : [];
    });
    // Every compared metric is one family: the movers shown are judged among all of them.
    const judged = judgePairs(pairs, samples);
    const moved = pairs
      .map((pair, i) => ({
        ...pair,
        judged: judged[i]!,
        weight: weight(pair.row, pair.old.value, pair.row.value),
      }))
      .filter(({ row, old }) => old.value !== row.value)
      .sort((a, b) => b.weight - a.weight);
    const out = (r: typeof run) => ({ run_id: r.run_id, run: r.run, run_created_at: r.run_created_at });
    return answer({
      query_set_id: set.query_set_id,
      base: out(base),
      run: out(run),
      compared: pairs.length,
      movers: moved.slice(0, args.limit).map(({ row, old, judged }) => ({
        metric: metricName(row),
        title: readableName(row),
        breakdown: row.dimension || null,
        label: row.dimension_label,
        unit: row.unit,
        before: old.value,
        after: row.value,
        ...judged,
      })),
      unchanged: pairs.length - moved.length,
    });
  },
});
