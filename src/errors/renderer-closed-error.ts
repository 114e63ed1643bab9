import { ReportdError } from './reportd-error.js';

/** `render` after `close()`. */
export class RendererClosedError extends ReportdError {
  override name = 'RendererClosedError' as const;
  static override readonly code: string = 'ERR_RENDERER_CLOSED';
}
