import type { z } from 'zod';
import { metricEndpoint } from '../../api/endpoints.js';
import { mixScale, ruleFor } from '../../api/field-units.js';
import type { MessageKey } from '../../locale/catalog-en.js';
import { t } from '../../locale/locale.js';
import { excelFormat } from '../format.js';
import type { ReportFamily } from '../model/family.js';
import { reportFamily } from '../model/index.js';
import { PayloadReader } from '../model/payloads.js';
import type { ReportSnapshot } from '../model/snapshot.js';
import type { NumberCell, SheetWriter } from './sheet-writer.js';

export interface WorkbookMeta {
  generatedAt: Date;
  version: string;
  account: string;
  /** Language of sheet titles, headers and notes (`REPORT_LOCALES`); en-US when absent. Numbers and
   * dates stay native cells: Excel shows them the reader's way. */
  locale?: string;
  /** The false discovery rate its changes are judged at (`false_discovery_rate`); 0.05 when absent. */
  alpha?: number;
}

/**
 * What every sheet writer gets: the snapshot, its payload reader, the set's history, the meta, and
 * the verdicts on its changes (the same family the run's PDF judges, against the previous run).
 */
export interface SheetContext {
  readonly snapshot: ReportSnapshot;
  readonly reader: PayloadReader;
  readonly history: readonly ReportSnapshot[];
  readonly meta: WorkbookMeta;
  readonly family: ReportFamily;
}

export function createContext(
  snapshot: ReportSnapshot,
  history: readonly ReportSnapshot[],
  meta: WorkbookMeta,
): SheetContext {
  const family = reportFamily(snapshot, history, {
    generatedAt: meta.generatedAt,
    version: meta.version,
    ...(meta.locale ? { locale: meta.locale } : {}),
    ...(meta.alpha === undefined ? {} : { alpha: meta.alpha }),
  });
  return { snapshot, reader: new PayloadReader(snapshot), history, meta, family };
}

/**
 * One payload as one block: its title, then either what `render` writes or a "Data unavailable" row.
 * A render that throws on odd-but-valid data also becomes that row, so one card never sinks the file.
 */
export function block<S extends z.ZodType>(
  w: SheetWriter,
  ctx: SheetContext,
  key: string,
  schema: S,
  render: (data: z.infer<S>) => void,
): void {
  w.title(t(`endpoint.${metricEndpoint(key).key}` as MessageKey));
  const result = ctx.reader.read(key, schema);
  if (!result.ok) {
    w.note(ctx.reader.unavailable(key, result.reason).note);
  } else {
    try {
      render(result.data);
    } catch (error) {
      w.note(ctx.reader.unavailable(key, t('xlsx.layoutFailed', { error: String(error) })).note);
    }
  }
  w.gap();
}

/**
 * A raw API number with the Excel format `format.ts` gives its field. Values keep the API's scale, so a
 * cell matches the payload (and the PDF) exactly; only the display differs by rule.
 */
export function num(
  value: unknown,
  key: string,
  field?: string,
  kind: 'value' | 'delta' = 'value',
  mix?: 'fraction' | 'percent',
): NumberCell {
  return { n: value, fmt: excelFormat(ruleFor(key, field), kind, mix) };
}

/** For `mix` fields: the scale of one whole (fractions vs percent points), as `format.ts` decides it. */
export function scaleOf(parts: readonly number[]): 'fraction' | 'percent' {
  return mixScale(parts);
}

/** Joins an id-keyed map (`"12": {...}`) to its list of engines or intents, list order first. */
export function joinById<E extends { id: number; label: string }, V>(
  list: readonly E[],
  map: Readonly<Record<string, V>>,
): { entity: E | undefined; label: string; value: V | undefined }[] {
  const listed = new Set(list.map((entity) => String(entity.id)));
  const rows: { entity: E | undefined; label: string; value: V | undefined }[] = list.map((entity) => ({
    entity,
    label: entity.label,
    value: Object.hasOwn(map, String(entity.id)) ? map[String(entity.id)] : undefined,
  }));
  // Ids the map has but the list lacks are still data: show them under their id.
  for (const id of Object.keys(map)) {
    if (!listed.has(id)) rows.push({ entity: undefined, label: `#${id}`, value: map[id] });
  }
  return rows;
}

/** A card's own history (values + labels) as long rows: metric, measurement, value. */
export function seriesRows(
  metric: string,
  key: string,
  values: readonly number[],
  labels: readonly string[],
  field?: string,
): [string, string, NumberCell][] {
  return values.map((value, i) => [metric, labels[i] ?? `#${i + 1}`, num(value, key, field)]);
}
