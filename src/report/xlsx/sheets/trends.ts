import { seriesCard } from '../../../api/schemas/common.js';
import type { MessageKey } from '../../../locale/catalog-en.js';
import { t } from '../../../locale/locale.js';
import { type SheetContext, seriesRows } from '../context.js';
import type { CellInput, SheetWriter } from '../sheet-writer.js';

/**
 * The history each card carries itself (`history` + `historyLabels`), long format. It reaches further
 * back than the snapshots reportd has stored, which the History sheet covers.
 */
export function cardTrends(
  w: SheetWriter,
  ctx: SheetContext,
  name: string,
  /** Endpoint key and the catalog key of the metric's name. */
  cards: readonly (readonly [key: string, metric: MessageKey])[],
): void {
  const rows: CellInput[][] = [];
  const missing: string[] = [];
  for (const [key, metric] of cards) {
    const result = ctx.reader.read(key, seriesCard);
    if (result.ok) rows.push(...seriesRows(t(metric), key, result.data.history, result.data.historyLabels));
    else missing.push(ctx.reader.unavailable(key, result.reason).note);
  }
  w.title(t('xlsx.apiTrend'));
  w.table({
    name,
    columns: [{ header: t('col.metric') }, { header: t('xlsx.measurement') }, { header: t('xlsx.value') }],
    rows,
  });
  for (const note of missing) w.note(note);
  w.gap();
}
