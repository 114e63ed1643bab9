import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { printable } from '../printable.js';
import { scrub } from '../secrets.js';
import type { Store } from '../store/db.js';
import { registerCompareTools } from './compare-tools.js';
import { findSet, listSets, MAX_RUNS, setRuns, ToolInputError } from './reads.js';
import { registerSeriesTools } from './series-tools.js';

/**
 * The MCP tools over the store: each with a zod input and output schema, a description that says
 * when to use it, bounded answers (limits and offsets), and errors as tool results with one line
 * naming what was wrong, never a stack. Text from the API comes back as JSON string values: data.
 */

export interface ToolContext {
  store: Store;
  /** Renders a report or workbook; absent where the server cannot render (then the tool says so). */
  render?: (input: {
    querySetId: number;
    account: string;
    runId: number;
    format: 'pdf' | 'xlsx';
  }) => Promise<string>;
}

export type ToolResult = {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** The structured answer, and the same JSON as text for clients that read only `content`. */
export function answer(structured: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** A handler whose errors become a tool error: the input's fault named as it is, anything else in one line. */
export function guarded<A>(handler: (args: A) => Promise<ToolResult>): (args: A) => Promise<ToolResult> {
  return async (args) => {
    try {
      return await handler(args);
    } catch (error) {
      const message =
        error instanceof ToolInputError
          ? error.message
          : `reportd could not answer: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
      return { content: [{ type: 'text', text: printable(scrub(message)) }], isError: true };
    }
  };
}

export const setInput = {
  query_set_id: z.number().int().positive().describe('The query set, as list_sets gives it'),
  account: z.string().optional().describe('The account, when several accounts store the same set id'),
};

export const runOut = z.object({
  run_id: z.number(),
  run: z.string().describe('The run label the API published'),
  run_created_at: z.string().describe('When the run was published, ISO 8601'),
});

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
