import { ReportdError } from './reportd-error.js';

export class TemplateProblemsError extends ReportdError {
  override name = 'TemplateProblemsError' as const;
  static override readonly code: string = 'ERR_TEMPLATE_PROBLEMS';
}
