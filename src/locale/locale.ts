import { IntlMessageFormat } from 'intl-messageformat';
import {
  DEFAULT_LOCALE,
  isReportLocale,
  isTimeZone,
  REPORT_LOCALES,
  type ReportLocaleTag,
} from '../config/locale-tags.js';
import { UsageError } from '../errors/index.js';
import { de } from './catalog-de.js';
import { type Catalog, en, type MessageKey } from './catalog-en.js';
import { es } from './catalog-es.js';
import { fr } from './catalog-fr.js';

/**
 * The reader's language, number style and time zone for one document. Strings come from the catalog
 * of the tag's language (en-US and en-GB share English words but not date order); numbers and dates
 * go through `Intl`, so `37,3 %`, `15. Oktober 2026` and the French narrow no-break spaces are what
 * the platform's CLDR data says, not something written here.
 */

export const CATALOGS: Readonly<Record<string, Catalog>> = { en, de, fr, es };

export interface ReportLocale {
  readonly tag: ReportLocaleTag;
  /** IANA zone the document prints dates in. */
  readonly timeZone: string;
  /** The message `key` with its placeholders filled. */
  t(key: MessageKey, values?: Record<string, string | number>): string;
  /** A number with exactly `decimals` digits after the separator, grouped (`1.234,5` in German). */
  number(value: number, decimals: number): string;
  /** Percent points (42.3 for 42.3 %) as the locale writes a percentage. */
  percent(points: number, decimals: number): string;
  /** The calendar day of an instant in the document's zone: "15. Oktober 2026". */
  longDate(instant: Date | string): string;
  /** Day and time with the zone's short name, for "generated at". */
  dateTime(instant: Date): string;
}

const cache = new Map<string, ReportLocale>();

/** The locale for `tag` (one of `REPORT_LOCALES`) printing dates in `timeZone`; cached, immutable. */
export function reportLocale(tag: string = DEFAULT_LOCALE, timeZone = 'UTC'): ReportLocale {
  const id = `${tag}|${timeZone}`;
  let locale = cache.get(id);
  if (!locale) {
    // Checked once per pair: building an Intl format to validate a zone costs more than a model.
    if (!isReportLocale(tag)) {
      throw new UsageError(`locale "${tag}" is not supported; use one of ${REPORT_LOCALES.join(', ')}`);
    }
    if (!isTimeZone(timeZone)) throw new UsageError(`time zone "${timeZone}" is not an IANA time zone`);
    locale = createLocale(tag, timeZone);
    cache.set(id, locale);
  }
  return locale;
}

function createLocale(tag: ReportLocaleTag, timeZone: string): ReportLocale {
  const catalog = CATALOGS[tag.slice(0, 2)] ?? en;
  const messages = new Map<string, IntlMessageFormat>();
  const numbers = new Map<string, Intl.NumberFormat>();
  const numberFormat = (decimals: number, style: 'decimal' | 'percent') => {
    const id = `${style}${decimals}`;
    let format = numbers.get(id);
    if (!format) {
      format = new Intl.NumberFormat(tag, {
        style,
        minimumFractionDigits: decimals,
        maximumFractionDigits: decimals,
      });
      numbers.set(id, format);
    }
    return format;
  };
  // "-0,0" reads as a negative change that is not there: a value that rounds to zero shows as zero.
  const unsignedZero = (text: string) => (/^-[^1-9]*$/.test(text) ? text.slice(1) : text);
  const day = new Intl.DateTimeFormat(tag, { dateStyle: 'long', timeZone });
  const stamp = new Intl.DateTimeFormat(tag, {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    timeZone,
    timeZoneName: 'short',
  });
  return {
    tag,
    timeZone,
    t(key, values) {
      let message = messages.get(key);
      if (!message) {
        const source = catalog[key] ?? en[key];
        if (source === undefined) throw new Error(`message ${key} is not in the catalog`);
        message = messageFormat(source, tag);
        messages.set(key, message);
      }
      return String(message.format(values));
    },
    number: (value, decimals) => unsignedZero(numberFormat(decimals, 'decimal').format(value)),
    percent: (points, decimals) => unsignedZero(numberFormat(decimals, 'percent').format(points / 100)),
    longDate(instant) {
      const date = typeof instant === 'string' ? new Date(instant) : instant;
      return Number.isNaN(date.getTime()) ? String(instant) : day.format(date);
    },
    dateTime: (instant) => stamp.format(instant),
  };
}

/**
 * The Intl formatters every message shares. IntlMessageFormat otherwise builds a set per message
 * (its own cache, its own Intl.PluralRules and Intl.NumberFormat for each plural and number it
 * formats), and a report formats a few hundred messages. Keyed by their arguments, the locale
 * among them, as IntlMessageFormat's own cache is.
 */
const sharedFormatters = {
  getNumberFormat: memoized(
    (...args: ConstructorParameters<typeof Intl.NumberFormat>) => new Intl.NumberFormat(...args),
  ),
  getDateTimeFormat: memoized(
    (...args: ConstructorParameters<typeof Intl.DateTimeFormat>) => new Intl.DateTimeFormat(...args),
  ),
  getPluralRules: memoized(
    (...args: ConstructorParameters<typeof Intl.PluralRules>) => new Intl.PluralRules(...args),
  ),
};

function memoized<A extends unknown[], T>(make: (...args: A) => T): (...args: A) => T {
  const made = new Map<string, T>();
  return (...args) => {
    const key = JSON.stringify(args);
    let hit = made.get(key);
    if (hit === undefined) {
      hit = make(...args);
      made.set(key, hit);
    }
    return hit;
  };
}

/** A message of `source` for `tag`, with the formatters every message shares. */
export function messageFormat(source: string, tag: string): IntlMessageFormat {
  return new IntlMessageFormat(source, tag, undefined, { formatters: sharedFormatters });
}

let active: ReportLocale = reportLocale();

/**
 * Runs `build` with `locale` as the one `currentLocale()` returns, then restores the previous one. The
 * report model, its view and its templates are built synchronously, so no other render can run
 * while the locale is set and none sees it; `build` must not be async for that to hold.
 */
export function withLocale<T>(locale: ReportLocale, build: () => T): T {
  const previous = active;
  active = locale;
  try {
    return build();
  } finally {
    active = previous;
  }
}

/** The locale of the document being built (en-US, UTC outside `withLocale`). */
export function currentLocale(): ReportLocale {
  return active;
}

/** A message of the current locale: the one translation function of the report, charts and email. */
export function t(key: MessageKey, values?: Record<string, string | number>): string {
  return active.t(key, values);
}
