import { judgeChange } from '../../insight/changes.js';
import { ruleFor } from '../format.js';
import { t } from '../locale/locale.js';
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
  value: number,
  delta: number | undefined,
): CellInput[] {
  if (delta === undefined) return [null, null, null];
  const rule = ruleFor(key, field).name;
  const unit = rule === 'percent' ? 'percent' : rule === 'fraction' ? 'fraction' : 'unknown';
  const sample = ctx.reader
    .samples()
    .of({ endpoint: key, field: field ?? 'current', dimension: '', dimension_id: null });
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
