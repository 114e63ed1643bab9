import * as gravity from '../../../api/schemas/gravity.js';
import { t } from '../../../locale/locale.js';
import { block, joinById, num, scaleOf, seriesRows } from '../context.js';
import type { CellInput } from '../sheet-writer.js';
import { keyFigures } from './key-figures.js';
import type { SheetDef } from './sheet-def.js';
import { cardTrends } from './trends.js';

const SOURCES = [
  ['owned', 'source.owned'],
  ['partner', 'source.partner'],
  ['external', 'source.external'],
] as const;

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

    block(w, ctx, 'gravity.source-distribution', gravity.sourceDistribution, (d) => {
      const key = 'gravity.source-distribution';
      const mix = scaleOf(SOURCES.map(([field]) => d[field]));
      w.table({
        name: 'Sources',
        columns: [{ header: t('col.source') }, { header: t('col.share'), bar: true }],
        rows: SOURCES.map(([field, label]) => [t(label), num(d[field], key, field, 'value', mix)]),
      });
    });

    block(w, ctx, 'gravity.by-engine', gravity.byEngine, (d) => {
      const key = 'gravity.by-engine';
      w.table({
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
      });
    });

    block(w, ctx, 'gravity.error-register', gravity.errorRegister, (d) => {
      const engines = new Map(d.engines.map((e) => [e.id, e.label]));
      // One row per wrong statement (long format), so an analyst can filter by engine or error.
      const rows: CellInput[][] = d.gravityErrors.flatMap((error) => {
        const base = [error.id, error.title, error.correct, error.note];
        if (error.wrong.length === 0) return [[...base, null, null]];
        return error.wrong.map((wrong) => [
          ...base,
          engines.get(wrong.engine) ?? `#${wrong.engine}`,
          wrong.text,
        ]);
      });
      w.table({
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
      });
    });

    block(w, ctx, 'gravity.trend', gravity.trend, (d) => {
      const key = 'gravity.trend';
      w.table({
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
      });
    });

    block(w, ctx, 'gravity.source-distribution-history', gravity.sourceDistributionHistory, (d) => {
      const key = 'gravity.source-distribution-history';
      w.table({
        name: 'SourceHistory',
        columns: [{ header: t('xlsx.measurement') }, ...SOURCES.map(([, label]) => ({ header: t(label) }))],
        rows: d.measurements.map((label, i) => {
          const values = SOURCES.map(([field]) => d.series[field][i]);
          const mix = scaleOf(values.map((v) => v ?? 0));
          return [label, ...values.map((v, j) => num(v, key, SOURCES[j]?.[0], 'value', mix))];
        }),
      });
    });

    cardTrends(w, ctx, 'CardTrend', [
      ['gravity.gravity-plus', 'endpoint.gravity.gravity-plus'],
      ['gravity.gravity-minus', 'endpoint.gravity.gravity-minus'],
    ]);
    block(w, ctx, 'gravity.open-errors', gravity.openErrors, (d) => {
      w.table({
        name: 'OpenErrorsTrend',
        columns: [
          { header: t('col.metric') },
          { header: t('xlsx.measurement') },
          { header: t('xlsx.value') },
        ],
        rows: seriesRows(
          t('endpoint.gravity.open-errors'),
          'gravity.open-errors',
          d.history,
          d.historyLabels,
        ),
      });
    });
  },
};
