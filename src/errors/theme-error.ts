import { ReportdError } from './reportd-error.js';

/**
 * Thrown when a report's theme cannot be used: a logo that is missing, too big, not an image, or an
 * SVG holding scripts or external references; a colour or font that is not usable. Names the config
 * path (`reports[0].theme.logo`) and the file.
 */
export class ThemeError extends ReportdError {
  override name = 'ThemeError' as const;
  static override readonly code: string = 'ERR_THEME';
}
