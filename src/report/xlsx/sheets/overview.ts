import * as overview from '../../../api/schemas/overview.js';
import { t } from '../../../locale/locale.js';
import { block, num } from '../context.js';
import { keyFigures } from './key-figures.js';
import type { SheetDef } from './sheet-def.js';

export const overviewSheet: SheetDef = {
  name: 'Overview',
  titleKey: 'group.overview',
  endpoints: ['overview.summary', 'overview.competitive-context'],
  write(w, ctx) {
    keyFigures(w, ctx, 'overview');
    block(w, ctx, 'overview.summary', overview.summary, (d) => {
      // The summary is untrusted prose: one wrapped text cell, never parsed or linked.
      w.table({
        name: 'Summary',
        columns: [{ header: t('endpoint.overview.summary'), wrap: true }],
        rows: [[d.content]],
      });
    });
    block(w, ctx, 'overview.competitive-context', overview.competitiveContext, (d) => {
      const key = 'overview.competitive-context';
      w.table({
        name: 'Shares',
        columns: [
          { header: t('xlsx.name') },
          { header: t('col.share'), bar: true },
          { header: t('xlsx.brand') },
          { header: t('col.targeted') },
        ],
        rows: d.shares.map((s) => [s.name, num(s.share, key, 'share'), s.isBrand, s.isTargeted]),
      });
    });
  },
};
