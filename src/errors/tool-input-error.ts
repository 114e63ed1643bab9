import { ReportdError } from './reportd-error.js';

/** A tool's input that names something the store does not hold: said to the assistant as a tool error. */
export class ToolInputError extends ReportdError {
  override name = 'ToolInputError' as const;
  static override readonly code: string = 'ERR_MCP_TOOL_INPUT';
}
