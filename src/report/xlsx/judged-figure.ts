import { ruleFor } from '../../api/field-units.js';
import { t } from '../../locale/locale.js';
import { intervalText } from '../model/noise-delta.js';
import type { SheetContext } from './context.js';
import type { CellInput } from './sheet-writer.js';

/**
 * The noise model's verdict on a change, as five workbook cells beside it: its interval as it is
 * ("−12.5 to −4.6 pts", at the level its family asks for), the answers it was counted on (n), its
 * p-value, its adjusted value q in the workbook's family, and the verdict in words. The verdicts are
 * the ones the run's PDF prints (the same family, `ctx.family`; report/model/family.ts). A change
 * the model does not judge (not a share of answers, or no n) has blanks and "not judged", never
 * "likely change".
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
  if (delta === undefined || value === undefined) return [null, null, null, null, null];
  const rule = ruleFor(key, field).name;
  const ref = {
    endpoint: key,
    field: field ?? 'current',
    dimension: of.dimension,
    dimension_id: of.dimension ? of.id : null,
  };
  const judged = rule === 'percent' || rule === 'fraction' ? ctx.family.verdictOf(ref) : undefined;
  if (!judged || judged.low === null || judged.high === null)
    return [null, null, null, null, t('verdict.unknown')];
  const probability = (v: number | null) => (v === null ? null : { n: v, fmt: '0.0000' });
  return [
    intervalText(judged.low, judged.high),
    judged.nAfter,
    probability(judged.p),
    probability(judged.q),
    t(`verdict.${judged.significance}`),
  ];
}

/**
 * The headers of those five cells, localized as KeyFigures has them. A table with two judged
 * changes names each set after its metric ("Interval (pts) · Gross presence"): Excel tables need
 * unique headers.
 */
export function judgedColumns(metric?: string): { header: string }[] {
  const named = (header: string) => ({ header: metric ? `${header} · ${metric}` : header });
  return ['xlsx.interval', 'xlsx.n', 'xlsx.p', 'xlsx.q', 'xlsx.verdict'].map((key) =>
    named(t(key as 'xlsx.n')),
  );
}
