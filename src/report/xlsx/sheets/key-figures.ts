import type { MetricGroup } from '../../../api/endpoints.js';
import { t } from '../../../locale/locale.js';
import { num, type SheetContext } from '../context.js';
import { changeCell, judgedColumns, judgedFigureCells } from '../judged-figure.js';
import { KPI_SOURCES } from '../kpis.js';
import type { CellInput, SheetWriter } from '../sheet-writer.js';

/**
 * The headline numbers of a group, one row each: metric, value, change, its interval, n and
 * significance, note, endpoint. A payload that
 * is missing still gets its row, saying so, so the gap is visible where the number would be.
 */
export function keyFigures(w: SheetWriter, ctx: SheetContext, group: MetricGroup): void {
  const sources = KPI_SOURCES.filter((source) => source.group === group);
  if (sources.length === 0) return;
  const rows: CellInput[][] = [];
  for (const source of sources) {
    const result = ctx.reader.read(source.key, source.schema);
    if (!result.ok) {
      const { title, note } = ctx.reader.unavailable(source.key, result.reason);
      rows.push([title, null, null, null, null, null, null, null, note, source.key]);
      continue;
    }
    for (const figure of source.figures(result.data as never)) {
      rows.push([
        figure.metric,
        num(figure.value, source.key, figure.field),
        figure.delta === undefined ? null : changeCell(ctx, source.key, figure.field, figure.delta),
        ...judgedFigureCells(ctx, source.key, figure.field, figure.value, figure.delta),
        figure.note ?? null,
        source.key,
      ]);
    }
  }
  w.title(t('xlsx.keyFigures'));
  w.table({
    name: 'KeyFigures',
    columns: [
      { header: t('col.metric') },
      { header: t('xlsx.value') },
      { header: t('col.change') },
      ...judgedColumns(),
      { header: t('xlsx.note') },
      { header: t('xlsx.endpoint') },
    ],
    rows,
  });
  w.gap();
}
