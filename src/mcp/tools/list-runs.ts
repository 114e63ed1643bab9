import { z } from 'zod';
import { findSet, MAX_RUNS, setRuns } from '../reads.js';
import { answer, defineTool, runOut, setInput } from '../tool-parts.js';

/** `list_runs`: the stored runs of a query set, newest first, paged. */
export const listRunsTool = defineTool({
  name: 'list_runs',
  title: 'List the runs of a query set',
  description:
    'The stored runs of a query set, newest first, paged (limit, offset). Use a run_id from here in ' +
    'metric_series, compare_runs, error_register, cited_sources and render_report.',
  inputSchema: {
    ...setInput,
    limit: z.number().int().min(1).max(MAX_RUNS).default(20).describe(`Runs per page, at most ${MAX_RUNS}`),
    offset: z.number().int().min(0).default(0).describe('Runs to skip, newest first'),
  },
  outputSchema: {
    account: z.string(),
    query_set_id: z.number(),
    query_set: z.string(),
    brand: z.string().nullable(),
    total: z.number().describe('Runs stored'),
    runs: z.array(runOut.extend({ metric_rows: z.number() })),
    next_offset: z.number().nullable().describe('Offset of the next page, or null on the last'),
  },
  annotations: { readOnlyHint: true },
  handler: async ({ query_set_id, account, limit, offset }, { store }) => {
    const set = await findSet(store, query_set_id, account);
    const runs = await setRuns(store, set);
    const page = runs.slice(offset, offset + limit);
    return answer({
      account: set.account,
      query_set_id: set.query_set_id,
      query_set: set.query_set,
      brand: set.brand,
      total: runs.length,
      runs: page.map(({ snapshot_id: _, ...run }) => run),
      next_offset: offset + limit < runs.length ? offset + limit : null,
    });
  },
});
