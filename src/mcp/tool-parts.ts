import type { ShapeOutput, ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ToolInputError } from '../errors/index.js';
import { printable } from '../printable.js';
import { scrub } from '../secrets.js';
import type { Store } from '../store/sql.js';

/**
 * What every MCP tool is made of (one file each in tools/, registered by the table in tools.ts): its
 * definition, the context it reads, its answer (structured, and the same JSON as text), the guard
 * that turns errors into tool results, and the input and output schemas several tools share.
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

/** One MCP tool: what registerTool is given, and its handler (tools.ts guards it and binds the context). */
export interface McpTool<In extends ZodRawShapeCompat = ZodRawShapeCompat> {
  name: string;
  title: string;
  description: string;
  inputSchema: In;
  outputSchema: ZodRawShapeCompat;
  annotations: ToolAnnotations;
  handler: (args: ShapeOutput<In>, ctx: ToolContext) => Promise<ToolResult>;
}

/** A tool whose handler is checked against its own input schema, widened so one table holds them all. */
export function defineTool<In extends ZodRawShapeCompat>(tool: McpTool<In>): McpTool {
  return tool as unknown as McpTool;
}

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

/** How to read a metric's value: its unit as the store keeps it. */
export const unitOut = z
  .string()
  .describe('percent (0..100), fraction (0..1), count, ratio, score or unknown: how to read the value');

export const runOut = z.object({
  run_id: z.number(),
  run: z.string().describe('The run label the API published'),
  run_created_at: z.string().describe('When the run was published, ISO 8601'),
});
