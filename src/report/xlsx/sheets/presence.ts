import * as presence from '../../../api/schemas/presence.js';
import { t } from '../../../locale/locale.js';
import { joinById, num } from '../context.js';
import { changeCell, judgedColumns, judgedFigureCells } from '../judged-figure.js';
import type { CellInput } from '../sheet-writer.js';
import { tableBlock, writeBlocks } from '../table-block.js';
import { intentCells, intentColumns, partCells, rowOf, sharesTable } from '../tables.js';
import { keyFigures } from './key-figures.js';
import type { SheetDef } from './sheet-def.js';
import { cardTrends } from './trends.js';

const POSITIONS = [
  ['p1', '1'],
  ['p2', '2'],
  ['p3', '3'],
  ['p4plus', '4+'],
] as const;

type Positions = Record<(typeof POSITIONS)[number][0], number>;

// A function, not a constant: headers are written in the workbook's locale, known only when it renders.
const positionParts = () => POSITIONS.map(([field, n]) => [field, t('xlsx.positionN', { n })] as const);

/** p1..p4plus as cells; they are parts of one whole, so their scale is read from their sum. */
function positionCells(key: string, p: Positions): CellInput[] {
  return partCells(
    key,
    POSITIONS.map(([field]) => [field, p[field]]),
  );
}

const positions = tableBlock('presence.position-distribution', presence.positionDistribution, (d, key) =>
  sharesTable('Positions', t('xlsx.position'), key, positionParts(), d, d.prev),
);

const positionByEngine = tableBlock(
  'presence.position-distribution-by-engine',
  presence.positionDistributionByEngine,
  (d, key, ctx) => {
    const row = (
      label: string,
      e: Positions & { timesCited: number; deltaTimesCited: number },
      of?: { dimension: string; id: string },
    ) => [
      label,
      num(e.timesCited, key, 'timesCited'),
      num(e.deltaTimesCited, key, 'deltaTimesCited', 'delta'),
      // A count of answers, not a share: blank interval and "unknown", as the PDF leaves it unjudged.
      ...judgedFigureCells(ctx, key, 'timesCited', e.timesCited, e.deltaTimesCited, of),
      ...positionCells(key, e),
    ];
    return {
      name: 'PositionByEngine',
      columns: [
        { header: t('col.engine') },
        { header: t('xlsx.timesCited') },
        { header: t('xlsx.changeInTimesCited') },
        ...judgedColumns(),
        ...POSITIONS.map(([, n]) => ({ header: t('xlsx.positionN', { n }) })),
      ],
      rows: [
        ...d.engines.map((e) => row(e.label, e, rowOf('engine', e))),
        row(t('common.allEngines'), d.totals),
      ],
    };
  },
);

const byEngine = tableBlock('presence.by-engine', presence.byEngine, (d, key, ctx) => ({
  name: 'ByEngine',
  columns: [
    { header: t('col.engine') },
    { header: t('endpoint.presence.weighted') },
    { header: t('endpoint.presence.gross') },
    { header: t('col.change') },
    ...judgedColumns(),
  ],
  rows: joinById(d.engines, d.presenceByEngine).map(({ entity, label, value: v }) => [
    label,
    num(v?.weighted, key, 'weighted'),
    num(v?.gross, key, 'gross'),
    changeCell(ctx, key, 'weighted', v?.delta, rowOf('engine', entity)),
    // The change is the weighted share's, as the PDF's "Presence by engine" judges it.
    ...judgedFigureCells(ctx, key, 'weighted', v?.weighted, v?.delta, rowOf('engine', entity)),
  ]),
}));

const byIntent = tableBlock('presence.by-intent', presence.byIntent, (d, key, ctx) => ({
  name: 'ByIntent',
  columns: [
    ...intentColumns(),
    { header: t('endpoint.presence.weighted') },
    { header: t('endpoint.presence.gross') },
    { header: t('xlsx.changeWeighted') },
    ...judgedColumns(t('endpoint.presence.weighted')),
    { header: t('xlsx.changeGross') },
    ...judgedColumns(t('endpoint.presence.gross')),
  ],
  rows: joinById(d.intents, d.presenceByIntent).map((row) => {
    const v = row.value;
    const of = rowOf('intent', row.entity);
    return [
      ...intentCells(row, key),
      num(v?.weighted, key, 'weighted'),
      num(v?.gross, key, 'gross'),
      changeCell(ctx, key, 'weighted', v?.deltaW, of),
      ...judgedFigureCells(ctx, key, 'weighted', v?.weighted, v?.deltaW, of),
      changeCell(ctx, key, 'gross', v?.deltaG, of),
      ...judgedFigureCells(ctx, key, 'gross', v?.gross, v?.deltaG, of),
    ];
  }),
}));

const engineIntent = tableBlock('presence.engine-intent-matrix', presence.engineIntentMatrix, (d, key) => {
  // Intents down, engines across: there are fewer engines, so the grid stays on one screen.
  const engines = joinById(d.engines, d.engineIntentMatrix);
  return {
    name: 'EngineIntent',
    columns: [{ header: t('col.intent') }, ...engines.map((e) => ({ header: e.label, scale: true }))],
    rows: d.intents.map((intent) => [
      intent.label,
      ...engines.map((e) => num(e.value?.[String(intent.id)], key)),
    ]),
  };
});

export const presenceSheet: SheetDef = {
  name: 'Presence',
  titleKey: 'group.presence',
  endpoints: [
    'presence.gross',
    'presence.weighted',
    'presence.position-distribution',
    'presence.position-distribution-by-engine',
    'presence.by-engine',
    'presence.by-intent',
    'presence.engine-intent-matrix',
  ],
  write(w, ctx) {
    keyFigures(w, ctx, 'presence');
    writeBlocks(w, ctx, [positions, positionByEngine, byEngine, byIntent, engineIntent]);
    cardTrends(w, ctx, 'Trend', [
      ['presence.gross', 'endpoint.presence.gross'],
      ['presence.weighted', 'endpoint.presence.weighted'],
    ]);
  },
};
