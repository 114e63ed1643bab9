import type { CompactStance, StanceSet } from '../../../api/schemas/common.js';
import * as life from '../../../api/schemas/life.js';
import { t } from '../../../locale/locale.js';
import { block, joinById, num, scaleOf } from '../context.js';
import { judgedColumns, judgedFigureCells } from '../judged-figure.js';
import type { CellInput } from '../sheet-writer.js';
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

// A function, not a constant: headers are written in the workbook's locale, known only when it renders.
const stanceHeaders = () => STANCES.map(([, , label]) => ({ header: t(label) }));

/** The five parts of a compact stance; one whole, so one scale per row (`format.ts` `mix`). */
function compactCells(key: string, stance: CompactStance | undefined): CellInput[] {
  if (!stance) return STANCES.map(() => null);
  const mix = scaleOf(STANCES.map(([, short]) => stance[short]));
  return STANCES.map(([, short]) => num(stance[short], key, 'stance', 'value', mix));
}

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

    block(w, ctx, 'life.stance-mix', life.stanceMix, (d) => {
      const key = 'life.stance-mix';
      const parts = (s: StanceSet) => STANCES.map(([field]) => s[field]);
      const now = scaleOf(parts(d));
      const prev = scaleOf(parts(d.prev));
      w.table({
        name: 'StanceMix',
        columns: [
          { header: t('xlsx.stance') },
          { header: t('col.share'), bar: true },
          { header: t('chart.previousRun') },
        ],
        rows: STANCES.map(([field, , label]) => [
          t(label),
          num(d[field], key, field, 'value', now),
          num(d.prev[field], key, field, 'value', prev),
        ]),
      });
    });

    block(w, ctx, 'life.stance-history', life.stanceHistory, (d) => {
      const key = 'life.stance-history';
      w.table({
        name: 'StanceHistory',
        columns: [{ header: t('xlsx.measurement') }, ...stanceHeaders()],
        rows: d.measurements.map((label, i) => {
          const values = STANCES.map(([field]) => d.series[field][i]);
          const mix = scaleOf(values.map((v) => v ?? 0));
          return [label, ...values.map((v, j) => num(v, key, STANCES[j]?.[0], 'value', mix))];
        }),
      });
    });

    block(w, ctx, 'life.scatter', life.scatter, (d) => {
      const key = 'life.scatter';
      w.table({
        name: 'Scatter',
        columns: [
          { header: t('col.intent') },
          { header: t('col.stage') },
          { header: 'ICV' },
          { header: t('endpoint.presence.weighted') },
          { header: t('endpoint.life.kpi') },
        ],
        rows: joinById(d.intents, d.presenceByIntent).map(({ entity, label, value }) => [
          label,
          entity?.stage ?? null,
          entity ? num(entity.icv, key, 'icv') : null,
          num(value?.weighted, key, 'weighted'),
          num(entity ? d.lifeByIntent[String(entity.id)]?.life : undefined, key, 'life'),
        ]),
      });
    });

    block(w, ctx, 'life.by-engine', life.byEngine, (d) => {
      const key = 'life.by-engine';
      w.table({
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
          ...judgedFigureCells(ctx, key, 'life', v?.life, v?.delta, {
            dimension: 'engine',
            id: String(entity?.id ?? ''),
          }),
          ...compactCells(key, v?.stance),
        ]),
      });
    });

    block(w, ctx, 'life.by-intent', life.byIntent, (d) => {
      const key = 'life.by-intent';
      w.table({
        name: 'ByIntent',
        columns: [
          { header: t('col.intent') },
          { header: t('col.stage') },
          { header: 'ICV' },
          { header: t('endpoint.life.kpi') },
          { header: t('col.change') },
          ...judgedColumns(),
          { header: t('group.presence') },
          ...stanceHeaders(),
        ],
        rows: joinById(d.intents, d.lifeByIntent).map(({ entity, label, value: v }) => [
          label,
          entity?.stage ?? null,
          entity ? num(entity.icv, key, 'icv') : null,
          num(v?.life, key, 'life'),
          num(v?.delta, key, 'delta', 'delta'),
          ...judgedFigureCells(ctx, key, 'life', v?.life, v?.delta, {
            dimension: 'intent',
            id: String(entity?.id ?? ''),
          }),
          num(v?.presence, key, 'presence'),
          ...compactCells(key, v?.stance),
        ]),
      });
    });

    cardTrends(w, ctx, 'Trend', [
      ['life.kpi', 'endpoint.life.kpi'],
      ['life.recommended-share', 'endpoint.life.recommended-share'],
      ['life.neutral-share', 'endpoint.life.neutral-share'],
      ['life.negative-share', 'endpoint.life.negative-share'],
      ['life.positive-negative-ratio', 'endpoint.life.positive-negative-ratio'],
    ]);
  },
};
