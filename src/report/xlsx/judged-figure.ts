import { ruleFor } from '../../api/field-units.js';
import { t } from '../../locale/locale.js';
import { intervalText } from '../model/noise-delta.js';
import { num, type SheetContext } from './context.js';
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
  const judged = ctx.family.verdictOf(refOf(key, field, of));
  if (judged?.significance === 'invalid') return [null, null, null, null, t('verdict.invalid')];
  if (judged?.note === 'copies-disagree') return [null, null, null, null, t('verdict.copiesDisagree')];
  if (!judged || judged.low === null || judged.high === null || (rule !== 'percent' && rule !== 'fraction'))
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
 * The change cell beside those five: the stored difference of the two runs (the one every surface
 * reads, insight/run-insight.ts), "—" for a value out of range, the API's own delta only when no
 * earlier run is stored (the About sheet says so).
 */
export function changeCell(
  ctx: SheetContext,
  key: string,
  field: string | undefined,
  reported: number | undefined,
  of: { dimension: string; id: string } = { dimension: '', id: '' },
): CellInput {
  const levelField = field ?? 'current';
  if (!ctx.family.insight) return reported === undefined ? null : num(reported, key, field, 'delta');
  const change = ctx.family.verdictOf(refOf(key, levelField, of));
  if (!change) return null;
  if (change.significance === 'invalid') return '—';
  // Rounded to 12 significant digits: 48.1 − 47.5 is 0.6000000000000014 in binary, and an analyst's
  // cell should hold the 0.6 the two stored values differ by.
  return num(Number((change.after - change.before).toPrecision(12)), key, field, 'delta');
}

function refOf(key: string, field: string | undefined, of: { dimension: string; id: string }) {
  return {
    endpoint: key,
    field: field ?? 'current',
    dimension: of.dimension,
    dimension_id: of.dimension ? of.id : null,
  };
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
