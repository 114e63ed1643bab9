import { ReportdError } from './reportd-error.js';

/** A render that did not finish before its deadline; the browser it used is recycled. */
export class RenderTimeoutError extends ReportdError {
  override name = 'RenderTimeoutError' as const;
  static override readonly code: string = 'ERR_RENDER_TIMEOUT';
}
