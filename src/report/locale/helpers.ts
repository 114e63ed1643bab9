import type Handlebars from 'handlebars';
import { CATALOGS, currentLocale, type MessageKey } from './locale.js';

/**
 * Template helpers for the document's locale, for the packaged templates and custom ones alike:
 *
 * - `{{t "key"}}`, `{{t "key" name=value}}`: a catalog message with its placeholders filled;
 * - `{{number value 1}}`: a number with that many decimals, grouped (`1.234,5`);
 * - `{{percent points 1}}`: percent points as the locale writes them (`37,3 %`);
 * - `{{date iso}}`: the calendar day of an ISO timestamp, in the report's time zone.
 *
 * They read the locale the document is being built in (`withLocale`), so one compiled template
 * serves every locale. Their output is a plain string: Handlebars escapes it like any value.
 */
export function registerLocaleHelpers(env: typeof Handlebars): void {
  env.registerHelper('t', (key: unknown, options: Handlebars.HelperOptions) => {
    if (typeof key !== 'string' || !Object.hasOwn(CATALOGS.en ?? {}, key)) {
      throw new Error(`{{t ${JSON.stringify(key)}}} names no message of the catalog`);
    }
    return currentLocale().t(key as MessageKey, options.hash as Record<string, string | number>);
  });
  env.registerHelper('number', (value: unknown, decimals: unknown) =>
    typeof value === 'number' ? currentLocale().number(value, digits(decimals, 0)) : '—',
  );
  env.registerHelper('percent', (points: unknown, decimals: unknown) =>
    typeof points === 'number' ? currentLocale().percent(points, digits(decimals, 1)) : '—',
  );
  env.registerHelper('date', (iso: unknown) =>
    typeof iso === 'string' || iso instanceof Date ? currentLocale().longDate(iso) : '—',
  );
}

/** A helper's optional decimals argument (Handlebars passes its options object when it is left out). */
function digits(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 6 ? value : fallback;
}
