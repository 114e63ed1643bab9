import * as presence from '../../../api/schemas/presence.js';
import { t } from '../../../locale/locale.js';
import { block, joinById, num, scaleOf } from '../context.js';
import { judgedColumns, judgedFigureCells } from '../judged-figure.js';
import type { CellInput } from '../sheet-writer.js';
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

/** p1..p4plus as cells; they are parts of one whole, so their scale is read from their sum. */
function positionCells(key: string, p: Positions): CellInput[] {
  const mix = scaleOf(POSITIONS.map(([field]) => p[field]));
  return POSITIONS.map(([field]) => num(p[field], key, field, 'value', mix));
}

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

    block(w, ctx, 'presence.position-distribution', presence.positionDistribution, (d) => {
      const key = 'presence.position-distribution';
      const now = scaleOf(POSITIONS.map(([f]) => d[f]));
      const prev = scaleOf(POSITIONS.map(([f]) => d.prev[f]));
      w.table({
        name: 'Positions',
        columns: [
          { header: t('xlsx.position') },
          { header: t('col.share'), bar: true },
          { header: t('chart.previousRun') },
        ],
        rows: POSITIONS.map(([f, n]) => [
          t('xlsx.positionN', { n }),
          num(d[f], key, f, 'value', now),
          num(d.prev[f], key, f, 'value', prev),
        ]),
      });
    });

    block(w, ctx, 'presence.position-distribution-by-engine', presence.positionDistributionByEngine, (d) => {
      const key = 'presence.position-distribution-by-engine';
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
      w.table({
        name: 'PositionByEngine',
        columns: [
          { header: t('col.engine') },
          { header: t('xlsx.timesCited') },
          { header: t('xlsx.changeInTimesCited') },
          ...judgedColumns(),
          ...POSITIONS.map(([, n]) => ({ header: t('xlsx.positionN', { n }) })),
        ],
        rows: [
          ...d.engines.map((e) => row(e.label, e, { dimension: 'engine', id: String(e.id) })),
          row(t('common.allEngines'), d.totals),
        ],
      });
    });

    block(w, ctx, 'presence.by-engine', presence.byEngine, (d) => {
      const key = 'presence.by-engine';
      w.table({
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
          num(v?.delta, key, 'delta', 'delta'),
          // The change is the weighted share's, as the PDF's "Presence by engine" judges it.
          ...judgedFigureCells(ctx, key, 'weighted', v?.weighted, v?.delta, {
            dimension: 'engine',
            id: String(entity?.id ?? ''),
          }),
        ]),
      });
    });

    block(w, ctx, 'presence.by-intent', presence.byIntent, (d) => {
      const key = 'presence.by-intent';
      w.table({
        name: 'ByIntent',
        columns: [
          { header: t('col.intent') },
          { header: t('col.stage') },
          { header: 'ICV' },
          { header: t('endpoint.presence.weighted') },
          { header: t('endpoint.presence.gross') },
          { header: t('xlsx.changeWeighted') },
          ...judgedColumns(t('endpoint.presence.weighted')),
          { header: t('xlsx.changeGross') },
          ...judgedColumns(t('endpoint.presence.gross')),
        ],
        rows: joinById(d.intents, d.presenceByIntent).map(({ entity, label, value: v }) => {
          const of = { dimension: 'intent', id: String(entity?.id ?? '') };
          return [
            label,
            entity?.stage ?? null,
            entity ? num(entity.icv, key, 'icv') : null,
            num(v?.weighted, key, 'weighted'),
            num(v?.gross, key, 'gross'),
            num(v?.deltaW, key, 'deltaW', 'delta'),
            ...judgedFigureCells(ctx, key, 'weighted', v?.weighted, v?.deltaW, of),
            num(v?.deltaG, key, 'deltaG', 'delta'),
            ...judgedFigureCells(ctx, key, 'gross', v?.gross, v?.deltaG, of),
          ];
        }),
      });
    });

    block(w, ctx, 'presence.engine-intent-matrix', presence.engineIntentMatrix, (d) => {
      const key = 'presence.engine-intent-matrix';
      // Intents down, engines across: there are fewer engines, so the grid stays on one screen.
      const engines = joinById(d.engines, d.engineIntentMatrix);
      w.table({
        name: 'EngineIntent',
        columns: [{ header: t('col.intent') }, ...engines.map((e) => ({ header: e.label, scale: true }))],
        rows: d.intents.map((intent) => [
          intent.label,
          ...engines.map((e) => num(e.value?.[String(intent.id)], key)),
        ]),
      });
    });

    cardTrends(w, ctx, 'Trend', [
      ['presence.gross', 'endpoint.presence.gross'],
      ['presence.weighted', 'endpoint.presence.weighted'],
    ]);
  },
};
