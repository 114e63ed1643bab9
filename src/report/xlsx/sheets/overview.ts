import * as overview from '../../../api/schemas/overview.js';
import { t } from '../../../locale/locale.js';
import { tableBlock, writeBlocks } from '../table-block.js';
import { brandSharesTable } from '../tables.js';
import { keyFigures } from './key-figures.js';
import type { SheetDef } from './sheet-def.js';

// The summary is untrusted prose: one wrapped text cell, never parsed or linked.
const summary = tableBlock('overview.summary', overview.summary, (d) => ({
  name: 'Summary',
  columns: [{ header: t('endpoint.overview.summary'), wrap: true }],
  rows: [[d.content]],
}));

const shares = tableBlock('overview.competitive-context', overview.competitiveContext, (d, key) =>
  brandSharesTable('Shares', key, d.shares),
);

export const overviewSheet: SheetDef = {
  name: 'Overview',
  titleKey: 'group.overview',
  endpoints: ['overview.summary', 'overview.competitive-context'],
  write(w, ctx) {
    keyFigures(w, ctx, 'overview');
    writeBlocks(w, ctx, [summary, shares]);
  },
};
