import type { ShareEntry } from '../../api/schemas/common.js';
import { t } from '../../locale/locale.js';
import { num, scaleOf } from './context.js';
import type { CellInput, ColumnSpec, NumberCell, TableSpec } from './sheet-writer.js';

/**
 * Table shapes that several sheets write alike: the parts of one whole (positions, stances, source
 * types) now, before and over time; the rows of an intent; the share list of brands.
 */

/** A part of one whole: its field in the payload and its name in the workbook's locale. */
export type Part<F extends string> = readonly [field: F, label: string];

/**
 * The parts of one whole as cells, each formatted by its field. They are one whole, so their scale
 * (fractions or percent points) is read from their sum (`format.ts` `mix`), never cell by cell.
 */
export function partCells(
  key: string,
  parts: readonly (readonly [field: string | undefined, value: number | null | undefined])[],
): NumberCell[] {
  const mix = scaleOf(parts.map(([, value]) => value ?? 0));
  return parts.map(([field, value]) => num(value, key, field, 'value', mix));
}

/** One row per part: its share now (as data bars) and, where the payload has it, in the previous run. */
export function sharesTable<F extends string>(
  name: string,
  header: string,
  key: string,
  parts: readonly Part<F>[],
  now: Readonly<Record<F, number>>,
  prev?: Readonly<Record<F, number>>,
): TableSpec {
  const cells = (whole: Readonly<Record<F, number>>) =>
    partCells(
      key,
      parts.map(([field]) => [field, whole[field]]),
    );
  const shares = cells(now);
  const before = prev && cells(prev);
  const columns: ColumnSpec[] = [{ header }, { header: t('col.share'), bar: true }];
  if (before) columns.push({ header: t('chart.previousRun') });
  return {
    name,
    columns,
    rows: parts.map(([, label], i) => [label, shares[i], ...(before ? [before[i]] : [])]),
  };
}

/** One row per measurement, one column per part: a whole's history (`series` lines up with `measurements`). */
export function partsHistoryTable<F extends string>(
  name: string,
  key: string,
  parts: readonly Part<F>[],
  measurements: readonly string[],
  series: Readonly<Record<F, readonly (number | null | undefined)[]>>,
): TableSpec {
  return {
    name,
    columns: [{ header: t('xlsx.measurement') }, ...parts.map(([, label]) => ({ header: label }))],
    rows: measurements.map((label, i) => [
      label,
      ...partCells(
        key,
        parts.map(([field]) => [field, series[field][i]]),
      ),
    ]),
  };
}

/** An intent's leading columns where the payload lists its funnel stage and volume. */
export const intentColumns = (): ColumnSpec[] => [
  { header: t('col.intent') },
  { header: t('col.stage') },
  { header: 'ICV' },
];

/** The cells under `intentColumns`: blank stage and volume for an id the intent list lacks. */
export function intentCells(
  row: { entity: { stage: string; icv: number } | undefined; label: string },
  key: string,
): CellInput[] {
  return [row.label, row.entity?.stage ?? null, row.entity ? num(row.entity.icv, key, 'icv') : null];
}

/** What a joined row is of, as the metric rows name it (`judgedFigureCells`'s `of`). */
export const rowOf = (dimension: string, entity: { id: number } | undefined) => ({
  dimension,
  id: String(entity?.id ?? ''),
});

/** Brands and competitors with their share (data bars), and whether each is the brand or targeted. */
export function brandSharesTable(name: string, key: string, shares: readonly ShareEntry[]): TableSpec {
  return {
    name,
    columns: [
      { header: t('xlsx.name') },
      { header: t('col.share'), bar: true },
      { header: t('xlsx.brand') },
      { header: t('col.targeted') },
    ],
    rows: shares.map((s) => [s.name, num(s.share, key, 'share'), s.isBrand, s.isTargeted]),
  };
}
