import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { guarded, type McpTool, type ToolContext } from './tool-parts.js';
import { citedSourcesTool } from './tools/cited-sources.js';
import { compareRunsTool } from './tools/compare-runs.js';
import { deliveredFilesTool } from './tools/delivered-files.js';
import { errorRegisterTool } from './tools/error-register.js';
import { listMetricsTool } from './tools/list-metrics.js';
import { listRunsTool } from './tools/list-runs.js';
import { listSetsTool } from './tools/list-sets.js';
import { metricSeriesTool } from './tools/metric-series.js';
import { renderReportTool } from './tools/render-report.js';

/**
 * The MCP tools over the store, one file each in tools/: each with a zod input and output schema, a
 * description that says when to use it, bounded answers (limits and offsets), and errors as tool
 * results with one line naming what was wrong, never a stack. Text from the API comes back as JSON
 * string values: data. Listed in the order a client's tools/list shows them.
 */
export const TOOLS: readonly McpTool[] = [
  listSetsTool,
  listRunsTool,
  listMetricsTool,
  metricSeriesTool,
  citedSourcesTool,
  renderReportTool,
  compareRunsTool,
  errorRegisterTool,
  deliveredFilesTool,
];

export function registerTools(server: McpServer, ctx: ToolContext): void {
  for (const { name, handler, ...config } of TOOLS)
    server.registerTool(
      name,
      config,
      guarded((args) => handler(args, ctx)),
    );
}
