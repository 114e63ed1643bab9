import { z } from 'zod';
import { ToolInputError } from '../../errors/index.js';
import { findRun, findSet, metricName, metricTitle, setRuns, snapshotRows } from '../reads.js';
import { answer, defineTool, runOut, setInput, unitOut } from '../tool-parts.js';

/** `list_metrics`: the metrics a query set has, with titles, units and breakdowns. */
export const listMetricsTool = defineTool({
  name: 'list_metrics',
  title: 'List the metrics of a query set',
  description:
    'The metrics stored for a query set (from its newest run, or run_id), each with a readable title, ' +
    'its unit and the breakdowns it has (engine, intent, competitor…). Use a metric name from here in metric_series.',
  inputSchema: {
    ...setInput,
    run_id: z.number().int().positive().optional().describe('Default: the newest run'),
  },
  outputSchema: {
    query_set_id: z.number(),
    run: runOut,
    metrics: z.array(
      z.object({
        metric: z.string().describe('e.g. presence.weighted.current: endpoint key and field'),
        title: z.string(),
        unit: unitOut,
        breakdowns: z.array(z.string()).describe('Dimensions it is broken down by; "" means overall'),
      }),
    ),
  },
  annotations: { readOnlyHint: true },
  handler: async ({ query_set_id, account, run_id }, { store }) => {
    const set = await findSet(store, query_set_id, account);
    const runs = await setRuns(store, set);
    if (runs.length === 0)
      throw new ToolInputError(`query set ${query_set_id} has no complete run stored yet`);
    const run = run_id === undefined ? runs[0]! : await findRun(store, set, runs, run_id);
    const byName = new Map<
      string,
      { metric: string; title: string; unit: string; breakdowns: Set<string> }
    >();
    for (const row of await snapshotRows(store, run.snapshot_id)) {
      if (row.dimension === 'measurement') continue; // history arrays: metric_series gives the same per run
      const name = metricName(row);
      const entry = byName.get(name) ?? {
        metric: name,
        title: metricTitle(row),
        unit: row.unit,
        breakdowns: new Set(),
      };
      entry.breakdowns.add(row.dimension);
      byName.set(name, entry);
    }
    return answer({
      query_set_id,
      run: { run_id: run.run_id, run: run.run, run_created_at: run.run_created_at },
      metrics: [...byName.values()].map((m) => ({ ...m, breakdowns: [...m.breakdowns].sort() })),
    });
  },
});
