import { z } from 'zod';
import { ToolInputError } from '../../errors/index.js';
import { findRun, findSet, setRuns, sources } from '../reads.js';
import { answer, defineTool, runOut, setInput } from '../tool-parts.js';

/** `cited_sources`: the sources the answer engines cited in a run, paged. */
export const citedSourcesTool = defineTool({
  name: 'cited_sources',
  title: 'Sources cited in a run',
  description:
    'The sources (domains, pages) the answer engines cited in a run of a query set, with who controls ' +
    'them and their type, paged. Default: the newest run.',
  inputSchema: {
    ...setInput,
    run_id: z.number().int().positive().optional(),
    limit: z.number().int().min(1).max(200).default(50),
    offset: z.number().int().min(0).default(0),
  },
  outputSchema: {
    query_set_id: z.number(),
    run: runOut,
    total: z.number(),
    sources: z.array(z.object({ source: z.string(), control: z.string(), source_type: z.string() })),
    next_offset: z.number().nullable(),
  },
  annotations: { readOnlyHint: true },
  handler: async ({ query_set_id, account, run_id, limit, offset }, { store }) => {
    const set = await findSet(store, query_set_id, account);
    const runs = await setRuns(store, set);
    if (runs.length === 0)
      throw new ToolInputError(`query set ${query_set_id} has no complete run stored yet`);
    const run = run_id === undefined ? runs[0]! : await findRun(store, set, runs, run_id);
    const all = await sources(store, run.snapshot_id);
    return answer({
      query_set_id,
      run: { run_id: run.run_id, run: run.run, run_created_at: run.run_created_at },
      total: all.length,
      sources: all.slice(offset, offset + limit),
      next_offset: offset + limit < all.length ? offset + limit : null,
    });
  },
});
