import type { MetricUnit } from '../../../api/field-units.js';
import { RULES, type RuleName } from '../../../api/field-units.js';
import { payloadRows } from '../../../api/metric-rows.js';
import { metricName } from '../../../insight/metric-names.js';
import { METRIC_VALUE_COLUMNS } from '../../../store/metric-reads.js';
import { isReportable } from '../../../store/snapshot-state.js';
import { excelFormat } from '../../format.js';
import type { ReportSnapshot } from '../../model/snapshot.js';
import type { SheetContext } from '../context.js';
import type { CellInput, SheetWriter } from '../sheet-writer.js';

const RULE_OF_UNIT: Record<MetricUnit, RuleName> = {
  percent: 'percent',
  fraction: 'fraction',
  count: 'count',
  ratio: 'decimal',
  score: 'score',
  unknown: 'decimal',
};
const FORMAT_OF_UNIT = Object.fromEntries(
  Object.entries(RULE_OF_UNIT).map(([unit, rule]) => [unit, excelFormat(RULES[rule])]),
) as Record<MetricUnit, string>;

/** Every complete snapshot of the set once, oldest run first (the current one wins over its stored copy). */
function snapshotsOf(ctx: SheetContext): ReportSnapshot[] {
  const byRun = new Map<number, ReportSnapshot>();
  for (const snapshot of ctx.history) byRun.set(snapshot.run.id, snapshot);
  if (isReportable(ctx.snapshot.state)) byRun.set(ctx.snapshot.run.id, ctx.snapshot);
  const time = (s: ReportSnapshot) => Date.parse(s.run.created_at);
  return [...byRun.values()].sort((a, b) => time(a) - time(b) || a.run.id - b.run.id);
}

/**
 * The tidy rows of the set (of every set, in a digest's workbook) across its stored runs, as one
 * Excel table: the same rows, built by the same mapping (api/metric-rows.ts), as the store's `metric_values` and `reportd export`, so an
 * analyst can pivot the whole history without leaving the file. Values keep the API's scale; the
 * number format follows the row's unit. The columns are those of `metric_values`, so a pivot built on
 * one fits the other, and then `label`: the metric's name as a person reads it, in the workbook's
 * locale (the endpoint and field columns are its ids).
 */
export function writeData(w: SheetWriter, sets: readonly SheetContext[]): void {
  // A digest's sets one after another in one table: the account, set and run columns tell them apart.
  const rows = sets.flatMap(dataRows);
  w.ws.views = [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2' }];
  w.table({
    name: 'Data',
    columns: [...METRIC_VALUE_COLUMNS, 'label'].map((header) => ({ header })),
    rows,
  });
}

function dataRows(ctx: SheetContext): CellInput[][] {
  const snapshots = snapshotsOf(ctx);
  // Run labels resolve within the set: two sets may both have a "Week 37".
  const runIdByLabel = new Map(snapshots.map((s) => [s.run.display_name, s.run.id]));
  const rows: CellInput[][] = [];
  for (const snapshot of snapshots) {
    const created = new Date(snapshot.run.created_at);
    for (const [endpoint, payload] of Object.entries(snapshot.payloads).sort(([a], [b]) =>
      a.localeCompare(b),
    )) {
      if (payload.error !== null) continue;
      for (const row of payloadRows(endpoint, payload.data, { runIdByLabel })) {
        rows.push([
          snapshot.account,
          snapshot.brand.id,
          snapshot.brand.name,
          snapshot.querySet.id,
          snapshot.querySet.name,
          snapshot.run.id,
          snapshot.run.display_name,
          Number.isNaN(created.getTime()) ? snapshot.run.created_at : created,
          row.endpoint,
          row.field,
          row.dimension,
          row.dimension_id,
          row.dimension_label,
          { n: row.value, fmt: FORMAT_OF_UNIT[row.unit] },
          row.unit,
          metricName(row, ctx.meta.locale),
        ]);
      }
    }
  }
  return rows;
}
