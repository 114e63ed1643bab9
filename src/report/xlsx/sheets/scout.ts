import * as scout from '../../../api/schemas/scout.js';
import { t } from '../../../locale/locale.js';
import { block, joinById, num } from '../context.js';
import { judgedColumns, judgedFigureCells } from '../judged-figure.js';
import { keyFigures } from './key-figures.js';
import type { SheetDef } from './sheet-def.js';

export const scoutSheet: SheetDef = {
  name: 'Scout',
  titleKey: 'group.scout',
  endpoints: [
    'scout.landscape-stats',
    'scout.source-landscape',
    'scout.references-by-llm',
    'scout.references-by-intent',
    'scout.citation-occurrences',
  ],
  write(w, ctx) {
    keyFigures(w, ctx, 'scout');

    block(w, ctx, 'scout.source-landscape', scout.sourceLandscape, (d) => {
      const key = 'scout.source-landscape';
      w.table({
        name: 'Sources',
        columns: [
          { header: t('col.source') },
          { header: t('col.citations') },
          { header: t('col.engines') },
          { header: t('col.control') },
          { header: t('xlsx.sourceType') },
          { header: t('xlsx.changeInCitations') },
          ...judgedColumns(),
        ],
        rows: d.sourcesDetail.map((s) => [
          s.name,
          num(s.citations, key, 'citations'),
          num(s.engines, key, 'engines'),
          s.control,
          s.sourceType,
          num(s.delta, key, 'delta', 'delta'),
          // Citations are a count, not a share of answers: blank interval and "unknown".
          ...judgedFigureCells(ctx, key, 'citations', s.citations, s.delta, {
            dimension: 'source',
            id: s.name,
          }),
        ]),
      });
    });

    block(w, ctx, 'scout.landscape-stats', scout.landscapeStats, (d) => {
      const key = 'scout.landscape-stats';
      w.table({
        name: 'LandscapeHistory',
        columns: [
          { header: t('xlsx.measurement') },
          { header: t('xlsx.domains') },
          { header: t('xlsx.urls') },
          { header: t('kpi.multiEngineDomains') },
        ],
        rows: d.historyLabels.map((label, i) => [
          label,
          num(d.domainsHistory[i], key, 'domainsHistory'),
          num(d.urlsHistory[i], key, 'urlsHistory'),
          num(d.multiEngineHistory[i], key, 'multiEngineHistory'),
        ]),
      });
    });

    block(w, ctx, 'scout.references-by-llm', scout.referencesByLlm, (d) => {
      const key = 'scout.references-by-llm';
      w.table({
        name: 'ByEngine',
        columns: [{ header: t('col.engine') }, { header: t('xlsx.weightedReferences'), bar: true }],
        rows: joinById(d.engines, d.dataByEngine).map(({ label, value }) => [
          label,
          num(value?.weighted, key, 'weighted'),
        ]),
      });
    });

    block(w, ctx, 'scout.references-by-intent', scout.referencesByIntent, (d) => {
      const key = 'scout.references-by-intent';
      w.table({
        name: 'ByIntent',
        columns: [
          { header: t('col.intent') },
          { header: t('col.stage') },
          { header: t('xlsx.weightedReferences'), bar: true },
        ],
        rows: joinById(d.intents, d.presenceByIntent).map(({ entity, label, value }) => [
          label,
          entity?.stage ?? null,
          num(value?.weighted, key, 'weighted'),
        ]),
      });
    });

    block(w, ctx, 'scout.citation-occurrences', scout.citationOccurrences, (d) => {
      const key = 'scout.citation-occurrences';
      // Categories the list names come first, in its order; series without a category keep their key.
      const named = d.categories.filter((c) => Object.hasOwn(d.series, c.key));
      const extra = Object.keys(d.series).filter((k) => !d.categories.some((c) => c.key === k));
      const columns = [
        ...named.map((c) => ({ key: c.key, label: c.label })),
        ...extra.map((k) => ({ key: k, label: k })),
      ];
      w.table({
        name: 'Citations',
        columns: [{ header: t('col.engine') }, ...columns.map((c) => ({ header: c.label }))],
        rows: d.engines.map((engine, i) => [engine, ...columns.map((c) => num(d.series[c.key]?.[i], key))]),
      });
    });
  },
};
