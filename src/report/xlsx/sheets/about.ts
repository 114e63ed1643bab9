import { metricEndpoints } from '../../../api/endpoints.js';
import { querySetDetails } from '../../../api/schemas/catalog.js';
import type { MessageKey } from '../../../locale/catalog-en.js';
import { t } from '../../../locale/locale.js';
import { familyLine } from '../../noise-view.js';
import type { SheetContext } from '../context.js';
import type { CellInput, SheetWriter } from '../sheet-writer.js';

/**
 * What this workbook is (account, brand, set, run, when, which reportd) and which payloads it could
 * not show, so an analyst knows a blank before hunting for it.
 */
export function writeAbout(w: SheetWriter, ctx: SheetContext, sheetOf: ReadonlyMap<string, string>): void {
  const { snapshot, meta } = ctx;
  const status = metricEndpoints.map((endpoint) => {
    const result = ctx.reader.read(endpoint.key, endpoint.schema);
    return { endpoint, reason: result.ok ? null : result.reason };
  });
  const unavailable = status.filter((s) => s.reason !== null).map((s) => s.endpoint.key);
  const details = querySetDetails.safeParse(snapshot.querySet.details);

  const rows: CellInput[][] = [
    [t('cover.account'), meta.account],
    [t('xlsx.brand'), snapshot.brand.name],
    [t('xlsx.brandId'), snapshot.brand.id],
    [t('cover.querySet'), snapshot.querySet.name],
    [t('xlsx.querySetId'), snapshot.querySet.id],
    [t('cover.runId'), snapshot.run.id],
    [t('xlsx.runLabel'), snapshot.run.display_name],
    // As the API sent it: the UTC offset it carries is information a Date cell would drop.
    [t('xlsx.runCreatedAt'), snapshot.run.created_at],
    [t('xlsx.snapshotId'), snapshot.id],
    [t('xlsx.snapshotState'), snapshot.state],
    [t('xlsx.snapshotCompletedAt'), snapshot.completedAt],
    ...(details.success
      ? ([
          [t('xlsx.queries'), details.data.queries_count],
          [t('col.engines'), details.data.engines.map((e) => `${e.name} (${e.ai_model_name})`).join(', ')],
        ] as CellInput[][])
      : []),
    [t('xlsx.generatedAtUtc'), meta.generatedAt],
    [t('xlsx.version'), meta.version],
    [t('xlsx.payloadsUnavailable'), unavailable.length === 0 ? t('xlsx.none') : unavailable.join(', ')],
    // Said once for the workbook, as the PDF says it once: how many changes were judged together.
    [t('xlsx.judged'), familyLine(ctx.family.settle()) || t('xlsx.none')],
  ];
  w.ws.views = [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2' }];
  w.table({
    name: 'About',
    columns: [{ header: t('xlsx.field') }, { header: t('xlsx.value'), wrap: true }],
    rows,
  });
  w.gap();
  w.title(t('xlsx.payloads'));
  w.table({
    name: 'Payloads',
    columns: [
      { header: t('xlsx.endpoint') },
      { header: t('xlsx.title') },
      { header: t('xlsx.sheet') },
      { header: t('xlsx.status') },
      { header: t('xlsx.detail') },
    ],
    rows: status.map(({ endpoint, reason }) => [
      endpoint.key,
      t(`endpoint.${endpoint.key}` as MessageKey),
      sheetOf.get(endpoint.key) ?? null,
      reason === null ? t('xlsx.ok') : t('xlsx.dataUnavailable'),
      reason,
    ]),
  });
}
