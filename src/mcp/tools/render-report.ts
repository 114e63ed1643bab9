import { z } from 'zod';
import { ToolInputError } from '../../errors/index.js';
import { findRun, findSet, setRuns } from '../reads.js';
import { answer, defineTool, runOut, setInput } from '../tool-parts.js';

/** `render_report`: a run's report or workbook rendered to a file, returned as a resource link. */
export const renderReportTool = defineTool({
  name: 'render_report',
  title: 'Render a report or workbook',
  description:
    "Renders a query set's report (pdf) or Excel workbook (xlsx) for a run, from the store, with the " +
    'same templates as `reportd render`, and returns the file as a resource link and its path. Default: the newest run.',
  inputSchema: {
    ...setInput,
    run_id: z.number().int().positive().optional(),
    format: z.enum(['pdf', 'xlsx']).default('xlsx'),
  },
  outputSchema: {
    query_set_id: z.number(),
    run: runOut,
    format: z.string(),
    path: z.string(),
    uri: z.string(),
  },
  annotations: { readOnlyHint: false },
  handler: async ({ query_set_id, account, run_id, format }, ctx) => {
    const { store } = ctx;
    if (!ctx.render) throw new ToolInputError('this server does not render (no output folder configured)');
    const set = await findSet(store, query_set_id, account);
    const runs = await setRuns(store, set);
    if (runs.length === 0)
      throw new ToolInputError(`query set ${query_set_id} has no complete run stored yet`);
    const run = run_id === undefined ? runs[0]! : await findRun(store, set, runs, run_id);
    const path = await ctx.render({
      querySetId: query_set_id,
      account: set.account,
      runId: run.run_id,
      format,
    });
    const uri = new URL(`file://${path}`).href;
    const structured = {
      query_set_id,
      run: { run_id: run.run_id, run: run.run, run_created_at: run.run_created_at },
      format,
      path,
      uri,
    };
    const result = answer(structured);
    return {
      ...result,
      content: [
        ...result.content,
        {
          type: 'resource_link' as const,
          uri,
          name: path.split('/').at(-1)!,
          mimeType:
            format === 'pdf'
              ? 'application/pdf'
              : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        },
      ],
    } as never;
  },
});
