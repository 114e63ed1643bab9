import { CATALOGS } from '../locale/locale.js';
import { deNames } from './names/de.js';
import { enNames } from './names/en.js';
import { esNames } from './names/es.js';
import { frNames } from './names/fr.js';
import type { MetricNameTable } from './names/types.js';

/**
 * The one way a metric row becomes words a person reads ("Gross presence on ChatGPT"), per locale:
 * alerts on every channel, the movers, the workbook's Data sheet, the export's `label` column and the
 * story all call `metricName`. Machine ids (`presence.gross`, `current`) stay in the data beside the
 * name (webhook JSON, export columns), never in place of it.
 */

export const NAME_TABLES: Readonly<Record<string, MetricNameTable>> = {
  en: enNames,
  de: deNames,
  fr: frNames,
  es: esNames,
};

export interface MetricRefRow {
  endpoint: string;
  field: string;
  dimension?: string | null;
  dimension_id?: string | null;
  dimension_label?: string | null;
}

/** The API's own change fields and the level each is the change of. */
const CHANGE_OF: Readonly<Record<string, string>> = {
  delta: 'current',
  deltaW: 'weighted',
  deltaG: 'gross',
  deltaTimesCited: 'timesCited',
  domainsDelta: 'totalDomains',
  urlsDelta: 'totalUrls',
};

/** Special cases of `CHANGE_OF` where the endpoint names its level differently. */
const CHANGE_OF_ENDPOINT: Readonly<Record<string, string>> = {
  'presence.by-engine|delta': 'weighted',
  'life.by-engine|delta': 'life',
  'life.by-intent|delta': 'life',
  'gravity.open-errors|delta': 'count',
  'scout.source-landscape|delta': 'citations',
  'presence.position-distribution-by-engine|totals.deltaTimesCited': 'totals.timesCited',
};

export function nameTable(locale = 'en-US'): MetricNameTable {
  return NAME_TABLES[locale.slice(0, 2)] ?? enNames;
}

const fill = (pattern: string, values: Record<string, string>) =>
  pattern.replace(/\{(\w+)\}/g, (_, key: string) => values[key] ?? '');

/** The metric's name without its member ("Gross presence"). */
export function baseName(endpoint: string, field: string, locale = 'en-US'): string {
  const table = nameTable(locale);
  const direct = table.names[`${endpoint}|${field}`];
  if (direct) return direct;
  const level = levelOf(endpoint, field);
  if (level && level.field !== field) {
    const name = baseName(endpoint, level.field, locale);
    return fill(level.kind === 'change' ? table.change : table.previous, { name });
  }
  // History points and fields no table knows: the endpoint's title, as the report's catalog has it.
  const catalog = CATALOGS[locale.slice(0, 2)] ?? CATALOGS.en!;
  return catalog[`endpoint.${endpoint}` as keyof typeof catalog] ?? catalog['endpoint.presence.gross'];
}

/** A field that is a change or a previous value of another field: that field and which it is. */
export function levelOf(
  endpoint: string,
  field: string,
): { field: string; kind: 'change' | 'previous' } | undefined {
  const special = CHANGE_OF_ENDPOINT[`${endpoint}|${field}`];
  if (special) return { field: special, kind: 'change' };
  const last = field.split('.').at(-1)!;
  const prefix = field.slice(0, field.length - last.length);
  const target = CHANGE_OF[last];
  if (target) return { field: `${prefix}${target}`, kind: 'change' };
  if (field === 'prev') return { field: 'share', kind: 'previous' };
  if (field.startsWith('prev.')) return { field: field.slice(5), kind: 'previous' };
  if (field === 'history') return { field: 'current', kind: 'previous' };
  return undefined;
}

/** The member of a row (engine, intent, competitor…) as words. */
export function memberName(row: MetricRefRow, locale = 'en-US'): string | undefined {
  const table = nameTable(locale);
  const id = row.dimension_id ?? '';
  if (row.dimension === 'stance') return table.stances[id] ?? row.dimension_label ?? id;
  if (row.dimension === 'category') {
    const [key = '', engine] = id.split('|');
    const word = table.categories[key] ?? row.dimension_label?.split(' | ')[0] ?? key;
    return engine ? `${word} (${engine})` : word;
  }
  if (row.dimension === 'engine_intent') return row.dimension_label?.replace(' | ', ' × ') ?? id;
  return row.dimension_label ?? (id || undefined);
}

/** The full name of a row: "Gross presence", "Gross presence on ChatGPT", "Share of voice of Acme". */
export function metricName(row: MetricRefRow, locale = 'en-US'): string {
  const name = baseName(row.endpoint, row.field, locale);
  const dimension = row.dimension ?? '';
  if (!dimension || dimension === 'measurement') return name;
  const member = memberName(row, locale);
  if (!member) return name;
  const pattern =
    nameTable(locale).member[dimension as keyof MetricNameTable['member']] ?? '{name}: {member}';
  return fill(pattern, { name, member });
}
