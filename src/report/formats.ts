/**
 * The document formats a snapshot renders to. Its own module so `reportd render` can check `--format`
 * before it loads the renderers (a cold start pays for those only after Chromium's launch has begun).
 */
export type ReportFormat = 'pdf' | 'xlsx' | 'html';
export const REPORT_FORMATS: readonly ReportFormat[] = ['pdf', 'xlsx', 'html'];
