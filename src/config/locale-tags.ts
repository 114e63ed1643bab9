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

// UTC, the default zone, is known without asking ICU (its first zone lookup costs tens of ms).
const knownZones = new Set<string>(['UTC']);

/**
 * Validates a zone name the way `Intl` will use it; a clear error instead of a RangeError later.
 * Accepts every zone ICU knows, including aliases like UTC that supportedValuesOf omits. A zone is
 * asked once: a config names the same few zones in many places.
 */
export function isTimeZone(zone: string): boolean {
  if (knownZones.has(zone)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    return false;
  }
  knownZones.add(zone);
  return true;
}
