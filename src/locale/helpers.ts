import type Handlebars from 'handlebars';
import type { IntlMessageFormat } from 'intl-messageformat';
import type { MessageKey } from './catalog-en.js';
import type { CatalogOverrides } from './catalog-files.js';
import { CATALOGS, currentLocale, messageFormat } from './locale.js';

/**
 * Template helpers for the document's locale, for the packaged templates and custom ones alike:
 *
 * - `{{t "key"}}`, `{{t "key" name=value}}`: a catalog message with its placeholders filled (the
 *   templates folder's own wording first, `locale/<language>.json`: see catalog-files.ts);
 * - `{{number value 1}}`: a number with that many decimals, grouped (`1.234,5`);
 * - `{{percent points 1}}`: percent points as the locale writes them (`37,3 %`);
 * - `{{date iso}}`: the calendar day of an ISO timestamp, in the report's time zone.
 *
 * They read the locale the document is being built in (`withLocale`), so one compiled template
 * serves every locale. Their output is a plain string: Handlebars escapes it like any value.
 */
export function registerLocaleHelpers(env: typeof Handlebars, overrides: CatalogOverrides = new Map()): void {
  const builtIn = (key: string) => Object.hasOwn(CATALOGS.en ?? {}, key);
  const own = new Map<string, IntlMessageFormat>();
  env.registerHelper('t', (key: unknown, options: Handlebars.HelperOptions) => {
    const values = options.hash as Record<string, string | number>;
    const known = (k: string) => builtIn(k) || [...overrides.values()].some((m) => Object.hasOwn(m, k));
    if (typeof key !== 'string' || !known(key)) {
      throw new Error(`{{t ${JSON.stringify(key)}}} names no message of the catalog`);
    }
    const locale = currentLocale();
    const language = locale.tag.slice(0, 2);
    const message = overrides.get(language)?.[key];
    if (message === undefined) {
      if (!builtIn(key)) throw new Error(`message "${key}" is missing from locale/${language}.json`);
      return locale.t(key as MessageKey, values);
    }
    const id = `${locale.tag}\n${key}`;
    let format = own.get(id);
    if (!format) {
      format = messageFormat(message, locale.tag);
      own.set(id, format);
    }
    return String(format.format(values));
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
