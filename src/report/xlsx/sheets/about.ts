import { metricEndpoints } from '../../../api/endpoints.js';
import { querySetDetails } from '../../../api/schemas/catalog.js';
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
    ['Account', meta.account],
    ['Brand', snapshot.brand.name],
    ['Brand id', snapshot.brand.id],
    ['Query set', snapshot.querySet.name],
    ['Query set id', snapshot.querySet.id],
    ['Run id', snapshot.run.id],
    ['Run label', snapshot.run.display_name],
    // As the API sent it: the UTC offset it carries is information a Date cell would drop.
    ['Run created at', snapshot.run.created_at],
    ['Snapshot id', snapshot.id],
    ['Snapshot state', snapshot.state],
    ['Snapshot completed at', snapshot.completedAt],
    ...(details.success
      ? ([
          ['Queries', details.data.queries_count],
          ['Engines', details.data.engines.map((e) => `${e.name} (${e.ai_model_name})`).join(', ')],
        ] as CellInput[][])
      : []),
    ['Generated at (UTC)', meta.generatedAt],
    ['reportd version', meta.version],
    ['Payloads unavailable', unavailable.length === 0 ? 'none' : unavailable.join(', ')],
  ];
  w.ws.views = [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2' }];
  w.table({ name: 'About', columns: [{ header: 'Field' }, { header: 'Value', wrap: true }], rows });
  w.gap();
  w.title('Payloads');
  w.table({
    name: 'Payloads',
    columns: [
      { header: 'Endpoint' },
      { header: 'Title' },
      { header: 'Sheet' },
      { header: 'Status' },
      { header: 'Detail' },
    ],
    rows: status.map(({ endpoint, reason }) => [
      endpoint.key,
      endpoint.title,
      sheetOf.get(endpoint.key) ?? null,
      reason === null ? 'ok' : 'data unavailable',
      reason,
    ]),
  });
}
