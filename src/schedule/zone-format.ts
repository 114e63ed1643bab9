/**
 * One `Intl.DateTimeFormat` per locale, zone and options, kept for the life of the process: building
 * one has ICU resolve the zone and work out a pattern each time, and `reportd check` alone would build
 * one for every UTC offset and every fire time it lists (a daemon, for every slot it computes).
 */
const formats = new Map<string, Intl.DateTimeFormat>();

export function zoneFormat(
  timeZone: string,
  options: Intl.DateTimeFormatOptions,
  locale = 'en-US',
): Intl.DateTimeFormat {
  const key = JSON.stringify([locale, timeZone, options]);
  let format = formats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { ...options, timeZone });
    formats.set(key, format);
  }
  return format;
}
