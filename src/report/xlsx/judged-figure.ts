import { judgeChange } from '../../insight/changes.js';
import { t } from '../../locale/locale.js';
import { ruleFor } from '../format.js';
import type { SheetContext } from './context.js';
import type { CellInput } from './sheet-writer.js';

/**
 * The noise model's verdict on a headline change, as three workbook cells beside it: the half-width
 * of its 95 % interval in points ("± (95 %)"), the answers it was counted on ("n") and the verdict in
 * words. The run before is `value − delta` on the same n, as the PDF's deltas judge it
 * (report/model/noise-delta.ts). A number that is not a share of answers has no interval: blank
 * cells and "unknown", never "beyond noise".
 */
export function judgedFigureCells(
  ctx: SheetContext,
  key: string,
  field: string | undefined,
  value: number | undefined,
  delta: number | undefined,
  /** What the row is of (an engine, an intent, a source), as the metric rows name it; none for a headline. */
  of: { dimension: string; id: string } = { dimension: '', id: '' },
): CellInput[] {
  if (delta === undefined || value === undefined) return [null, null, null];
  const rule = ruleFor(key, field).name;
  const unit = rule === 'percent' ? 'percent' : rule === 'fraction' ? 'fraction' : 'unknown';
  const sample = ctx.reader.samples().of({
    endpoint: key,
    field: field ?? 'current',
    dimension: of.dimension,
    dimension_id: of.dimension ? of.id : null,
  });
  const judged = judgeChange(
    { value: value - delta, n: sample?.n },
    { value, n: sample?.n },
    unit,
    sample !== undefined,
  );
  const half = judged.low === null || judged.high === null ? null : (judged.high - judged.low) / 2;
  return [
    half === null ? null : { n: Math.round(half * 10) / 10, fmt: '0.0' },
    sample?.n ?? null,
    t(`significance.${judged.significance}`),
  ];
}

/**
 * The headers of those three cells, localized as KeyFigures has them. A table with two judged
 * changes names each set after its metric ("± (95 %) · Gross presence"): Excel tables need unique
 * headers.
 */
export function judgedColumns(metric?: string): { header: string }[] {
  const named = (header: string) => ({ header: metric ? `${header} · ${metric}` : header });
  return [named(t('xlsx.interval')), named(t('xlsx.n')), named(t('xlsx.significance'))];
}
