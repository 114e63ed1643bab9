import * as gravity from '../../../api/schemas/gravity.js';
import { t } from '../../../locale/locale.js';
import { joinById, num, seriesRows } from '../context.js';
import type { CellInput } from '../sheet-writer.js';
import { tableBlock, writeBlocks } from '../table-block.js';
import { partsHistoryTable, sharesTable } from '../tables.js';
import { keyFigures } from './key-figures.js';
import type { SheetDef } from './sheet-def.js';
import { cardTrends } from './trends.js';

const SOURCES = [
  ['owned', 'source.owned'],
  ['partner', 'source.partner'],
  ['external', 'source.external'],
] as const;

// A function, not a constant: headers are written in the workbook's locale, known only when it renders.
const sourceParts = () => SOURCES.map(([field, label]) => [field, t(label)] as const);

const sources = tableBlock('gravity.source-distribution', gravity.sourceDistribution, (d, key) =>
  sharesTable('Sources', t('col.source'), key, sourceParts(), d),
);

const byEngine = tableBlock('gravity.by-engine', gravity.byEngine, (d, key) => ({
  name: 'ByEngine',
  columns: [
    { header: t('col.engine') },
    { header: 'G+' },
    { header: 'G−' },
    { header: t('endpoint.gravity.gravity-plus') },
    { header: t('endpoint.gravity.gravity-minus') },
  ],
  rows: joinById(d.engines, d.gravityByEngine).map(({ label, value: v }) => [
    label,
    num(v?.gPlus, key, 'gPlus'),
    num(v?.gMinus, key, 'gMinus'),
    num(v?.gravityPlus, key, 'gravityPlus'),
    num(v?.gravityMinus, key, 'gravityMinus'),
  ]),
}));

const errorRegister = tableBlock('gravity.error-register', gravity.errorRegister, (d) => {
  const engines = new Map(d.engines.map((e) => [e.id, e.label]));
  // One row per wrong statement (long format), so an analyst can filter by engine or error.
  const rows: CellInput[][] = d.gravityErrors.flatMap((error) => {
    const base = [error.id, error.title, error.correct, error.note];
    if (error.wrong.length === 0) return [[...base, null, null]];
    return error.wrong.map((wrong) => [...base, engines.get(wrong.engine) ?? `#${wrong.engine}`, wrong.text]);
  });
  return {
    name: 'Errors',
    columns: [
      { header: t('xlsx.errorId') },
      { header: t('xlsx.title'), wrap: true },
      { header: t('xlsx.correctStatement'), wrap: true },
      { header: t('xlsx.note'), wrap: true },
      { header: t('col.engine') },
      { header: t('xlsx.engineSays'), wrap: true },
    ],
    rows,
  };
});

const trend = tableBlock('gravity.trend', gravity.trend, (d, key) => ({
  name: 'Trend',
  columns: [
    { header: t('cover.runId') },
    { header: t('xlsx.measurement') },
    { header: t('endpoint.gravity.gravity-plus') },
    { header: t('endpoint.gravity.gravity-minus') },
  ],
  rows: d.measurements.map((m, i) => [
    m.id,
    m.label,
    num(d.historyPlus[i], key, 'historyPlus'),
    num(d.historyMinus[i], key, 'historyMinus'),
  ]),
}));

const sourceHistory = tableBlock(
  'gravity.source-distribution-history',
  gravity.sourceDistributionHistory,
  (d, key) => partsHistoryTable('SourceHistory', key, sourceParts(), d.measurements, d.series),
);

const openErrors = tableBlock('gravity.open-errors', gravity.openErrors, (d, key) => ({
  name: 'OpenErrorsTrend',
  columns: [{ header: t('col.metric') }, { header: t('xlsx.measurement') }, { header: t('xlsx.value') }],
  rows: seriesRows(t('endpoint.gravity.open-errors'), key, d.history, d.historyLabels),
}));

export const gravitySheet: SheetDef = {
  name: 'Gravity',
  titleKey: 'group.gravity',
  endpoints: [
    'gravity.gravity-plus',
    'gravity.gravity-minus',
    'gravity.open-errors',
    'gravity.source-distribution',
    'gravity.by-engine',
    'gravity.error-register',
    'gravity.trend',
    'gravity.source-distribution-history',
  ],
  write(w, ctx) {
    keyFigures(w, ctx, 'gravity');
    writeBlocks(w, ctx, [sources, byEngine, errorRegister, trend, sourceHistory]);
    cardTrends(w, ctx, 'CardTrend', [
      ['gravity.gravity-plus', 'endpoint.gravity.gravity-plus'],
      ['gravity.gravity-minus', 'endpoint.gravity.gravity-minus'],
    ]);
    writeBlocks(w, ctx, [openErrors]);
  },
};
