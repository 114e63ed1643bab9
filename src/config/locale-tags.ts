/**
 * The locales whose catalogs are complete; `reports[].locale` and `render --locale` accept exactly
 * these. Kept apart from the catalogs so that reading the config does not load them.
 */
export const REPORT_LOCALES = ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'es-ES'] as const;
export type ReportLocaleTag = (typeof REPORT_LOCALES)[number];
export const DEFAULT_LOCALE: ReportLocaleTag = 'en-US';

export function isReportLocale(tag: string): tag is ReportLocaleTag {
  return (REPORT_LOCALES as readonly string[]).includes(tag);
}

/** Validates a zone name the way `Intl` will use it; a clear error instead of a RangeError later. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
