import { ReportdError } from './reportd-error.js';

/**
 * Thrown when a user template folder is set but unusable, or a template does not compile. Its own
 * file (not templates.ts) so the CLI can recognise it without loading Handlebars.
 */
export class TemplateError extends ReportdError {
  override name = 'TemplateError' as const;
  static override readonly code: string = 'ERR_TEMPLATE';
}
