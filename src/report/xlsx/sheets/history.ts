import { t } from '../../../locale/locale.js';
import type { ReportSnapshot } from '../../model/snapshot.js';
import { num, type SheetContext } from '../context.js';
import { KPI_SOURCES, readFigures } from '../kpis.js';
import type { CellInput, SheetWriter } from '../sheet-writer.js';

/** Oldest run first; the current snapshot wins over a stored copy of the same run. */
function runsInOrder(current: ReportSnapshot, history: readonly ReportSnapshot[]): ReportSnapshot[] {
  const byRun = new Map<number, ReportSnapshot>();
  for (const snapshot of history) if (!byRun.has(snapshot.run.id)) byRun.set(snapshot.run.id, snapshot);
  byRun.set(current.run.id, current);
  const time = (s: ReportSnapshot) => Date.parse(s.run.created_at);
  return [...byRun.values()].sort((a, b) => time(a) - time(b) || a.run.id - b.run.id);
}

/**
 * Long format (metric, run, value) over every stored snapshot of the set: the shape a pivot table or a
 * chart wants. Values come from the snapshot of each run, not from the cards' own history arrays.
 */
export function writeHistory(w: SheetWriter, ctx: SheetContext): void {
  const runs = runsInOrder(ctx.snapshot, ctx.history);
  // Keyed by endpoint + metric (two endpoints both have a "Fair share"), in first-seen order, so each
  // metric's runs sit together, oldest first: ready for a chart or a pivot.
  const byMetric = new Map<string, CellInput[][]>();
  for (const source of KPI_SOURCES) {
    for (const snapshot of runs) {
      for (const figure of readFigures(source, snapshot.payloads[source.key]) ?? []) {
        const id = `${source.key}\u0000${figure.metric}`;
        const rows = byMetric.get(id) ?? [];
        byMetric.set(id, rows);
        rows.push([
          figure.metric,
          snapshot.run.id,
          snapshot.run.display_name,
          snapshot.run.created_at,
          num(figure.value, source.key, figure.field),
          source.key,
        ]);
      }
    }
  }
  w.ws.views = [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2' }];
  w.table({
    name: 'History',
    columns: [
      { header: t('col.metric') },
      { header: t('cover.runId') },
      { header: t('xlsx.runLabel') },
      { header: t('xlsx.runCreatedAt') },
      { header: t('xlsx.value') },
      { header: t('xlsx.endpoint') },
    ],
    rows: [...byMetric.values()].flat(),
  });
}
