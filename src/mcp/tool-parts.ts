import { z } from 'zod';
import { ToolInputError } from '../errors/index.js';
import { printable } from '../printable.js';
import { scrub } from '../secrets.js';
import type { Store } from '../store/db.js';

/**
 * What every MCP tool is made of (tools.ts, series-tools.ts, compare-tools.ts): the context it reads,
 * its answer (structured, and the same JSON as text), the guard that turns errors into tool results,
 * and the set input and run output schemas several tools share.
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
