import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { registerCompareTools } from './compare-tools.js';
import { findSet, listSets, MAX_RUNS, setRuns } from './reads.js';
import { registerSeriesTools } from './series-tools.js';
import { answer, guarded, runOut, setInput, type ToolContext } from './tool-parts.js';

/**
 * The MCP tools over the store: each with a zod input and output schema, a description that says
 * when to use it, bounded answers (limits and offsets), and errors as tool results with one line
 * naming what was wrong, never a stack. Text from the API comes back as JSON string values: data.
 */

export function registerTools(server: McpServer, ctx: ToolContext): void {
  const { store } = ctx;
  server.registerTool(
    'list_sets',
    {
      title: 'List brands and query sets',
      description:
        'Lists the brands and their query sets stored offline by reportd (every published run it synced), ' +
        'with how many runs each has. Start here to find a query_set_id. Reads the local store only.',
      inputSchema: { account: z.string().optional().describe('Only this account') },
      outputSchema: {
        sets: z.array(
          z.object({
            account: z.string(),
            brand_id: z.number().nullable(),
            brand: z.string().nullable(),
            query_set_id: z.number(),
            query_set: z.string(),
            state: z.string(),
            runs_stored: z.number().describe('Complete runs stored for this set'),
          }),
        ),
        note: z.string().optional(),
      },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ account }) => {
      const sets = await listSets(store, account);
      return answer({
        sets,
        ...(sets.length === 0 ? { note: 'nothing is stored yet: run `reportd sync` first' } : {}),
      });
    }),
  );

  server.registerTool(
    'list_runs',
    {
      title: 'List the runs of a query set',
      description:
        'The stored runs of a query set, newest first, paged (limit, offset). Use a run_id from here in ' +
        'metric_series, compare_runs, error_register, cited_sources and render_report.',
      inputSchema: {
        ...setInput,
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_RUNS)
          .default(20)
          .describe(`Runs per page, at most ${MAX_RUNS}`),
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
    },
    guarded(async ({ query_set_id, account, limit, offset }) => {
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
    }),
  );

  registerSeriesTools(server, ctx);
  registerCompareTools(server, ctx);
}
