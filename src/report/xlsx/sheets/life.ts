import type { CompactStance } from '../../../api/schemas/common.js';
import * as life from '../../../api/schemas/life.js';
import { t } from '../../../locale/locale.js';
import { joinById, num } from '../context.js';
import { judgedColumns, judgedFigureCells } from '../judged-figure.js';
import type { CellInput } from '../sheet-writer.js';
import { tableBlock, writeBlocks } from '../table-block.js';
import { intentCells, intentColumns, partCells, partsHistoryTable, rowOf, sharesTable } from '../tables.js';
import { keyFigures } from './key-figures.js';
import type { SheetDef } from './sheet-def.js';
import { cardTrends } from './trends.js';

const STANCES = [
  ['recommended', 'rec', 'stance.recommended'],
  ['advisedNotFavored', 'adv', 'stance.advisedNotFavored'],
  ['neutral', 'neu', 'stance.neutral'],
  ['cautious', 'cau', 'stance.cautious'],
  ['negative', 'neg', 'stance.negative'],
] as const;

// Functions, not constants: headers are written in the workbook's locale, known only when it renders.
const stanceParts = () => STANCES.map(([field, , label]) => [field, t(label)] as const);
const stanceHeaders = () => STANCES.map(([, , label]) => ({ header: t(label) }));

/** The five parts of a compact stance; one whole, so one scale per row (`format.ts` `mix`). */
function compactCells(key: string, stance: CompactStance | undefined): CellInput[] {
  if (!stance) return STANCES.map(() => null);
  return partCells(
    key,
    STANCES.map(([, short]) => ['stance', stance[short]]),
  );
}

const stanceMix = tableBlock('life.stance-mix', life.stanceMix, (d, key) =>
  sharesTable('StanceMix', t('xlsx.stance'), key, stanceParts(), d, d.prev),
);

const stanceHistory = tableBlock('life.stance-history', life.stanceHistory, (d, key) =>
  partsHistoryTable('StanceHistory', key, stanceParts(), d.measurements, d.series),
);

const scatter = tableBlock('life.scatter', life.scatter, (d, key) => ({
  name: 'Scatter',
  columns: [
    ...intentColumns(),
    { header: t('endpoint.presence.weighted') },
    { header: t('endpoint.life.kpi') },
  ],
  rows: joinById(d.intents, d.presenceByIntent).map((row) => [
    ...intentCells(row, key),
    num(row.value?.weighted, key, 'weighted'),
    num(row.entity ? d.lifeByIntent[String(row.entity.id)]?.life : undefined, key, 'life'),
  ]),
}));

const byEngine = tableBlock('life.by-engine', life.byEngine, (d, key, ctx) => ({
  name: 'ByEngine',
  columns: [
    { header: t('col.engine') },
    { header: t('endpoint.life.kpi') },
    { header: t('col.change') },
    ...judgedColumns(),
    ...stanceHeaders(),
  ],
  rows: joinById(d.engines, d.lifeByEngine).map(({ entity, label, value: v }) => [
    label,
    num(v?.life, key, 'life'),
    num(v?.delta, key, 'delta', 'delta'),
    // Life is a score, not a share of answers: blank interval and "unknown", never "beyond noise".
    ...judgedFigureCells(ctx, key, 'life', v?.life, v?.delta, rowOf('engine', entity)),
    ...compactCells(key, v?.stance),
  ]),
}));

const byIntent = tableBlock('life.by-intent', life.byIntent, (d, key, ctx) => ({
  name: 'ByIntent',
  columns: [
    ...intentColumns(),
    { header: t('endpoint.life.kpi') },
    { header: t('col.change') },
    ...judgedColumns(),
    { header: t('group.presence') },
    ...stanceHeaders(),
  ],
  rows: joinById(d.intents, d.lifeByIntent).map((row) => {
    const v = row.value;
    return [
      ...intentCells(row, key),
      num(v?.life, key, 'life'),
      num(v?.delta, key, 'delta', 'delta'),
      ...judgedFigureCells(ctx, key, 'life', v?.life, v?.delta, rowOf('intent', row.entity)),
      num(v?.presence, key, 'presence'),
      ...compactCells(key, v?.stance),
    ];
  }),
}));

export const lifeSheet: SheetDef = {
  name: 'Life',
  titleKey: 'group.life',
  endpoints: [
    'life.kpi',
    'life.recommended-share',
    'life.neutral-share',
    'life.negative-share',
    'life.positive-negative-ratio',
    'life.stance-mix',
    'life.stance-history',
    'life.scatter',
    'life.by-engine',
    'life.by-intent',
  ],
  write(w, ctx) {
    keyFigures(w, ctx, 'life');
    writeBlocks(w, ctx, [stanceMix, stanceHistory, scatter, byEngine, byIntent]);
    cardTrends(w, ctx, 'Trend', [
      ['life.kpi', 'endpoint.life.kpi'],
      ['life.recommended-share', 'endpoint.life.recommended-share'],
      ['life.neutral-share', 'endpoint.life.neutral-share'],
      ['life.negative-share', 'endpoint.life.negative-share'],
      ['life.positive-negative-ratio', 'endpoint.life.positive-negative-ratio'],
    ]);
  },
};
