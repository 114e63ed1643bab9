import { seriesCard } from '../../../api/schemas/common.js';
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
  cards: readonly (readonly [key: string, metric: string])[],
): void {
  const rows: CellInput[][] = [];
  const missing: string[] = [];
  for (const [key, metric] of cards) {
    const result = ctx.reader.read(key, seriesCard);
    if (result.ok) rows.push(...seriesRows(metric, key, result.data.history, result.data.historyLabels));
    else missing.push(ctx.reader.unavailable(key, result.reason).note);
  }
  w.title('Trend as reported by the API');
  w.table({
    name,
    columns: [{ header: 'Metric' }, { header: 'Measurement' }, { header: 'Value' }],
    rows,
  });
  for (const note of missing) w.note(note);
  w.gap();
}
