import * as scout from '../../../api/schemas/scout.js';
import { t } from '../../../locale/locale.js';
import { joinById, num } from '../context.js';
import { judgedColumns, judgedFigureCells } from '../judged-figure.js';
import { tableBlock, writeBlocks } from '../table-block.js';
import { keyFigures } from './key-figures.js';
import type { SheetDef } from './sheet-def.js';

const sources = tableBlock('scout.source-landscape', scout.sourceLandscape, (d, key, ctx) => ({
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
    ...judgedFigureCells(ctx, key, 'citations', s.citations, s.delta, { dimension: 'source', id: s.name }),
  ]),
}));

const landscapeHistory = tableBlock('scout.landscape-stats', scout.landscapeStats, (d, key) => ({
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
}));

const byEngine = tableBlock('scout.references-by-llm', scout.referencesByLlm, (d, key) => ({
  name: 'ByEngine',
  columns: [{ header: t('col.engine') }, { header: t('xlsx.weightedReferences'), bar: true }],
  rows: joinById(d.engines, d.dataByEngine).map(({ label, value }) => [
    label,
    num(value?.weighted, key, 'weighted'),
  ]),
}));

const byIntent = tableBlock('scout.references-by-intent', scout.referencesByIntent, (d, key) => ({
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
}));

const citations = tableBlock('scout.citation-occurrences', scout.citationOccurrences, (d, key) => {
  // Categories the list names come first, in its order; series without a category keep their key.
  const named = d.categories.filter((c) => Object.hasOwn(d.series, c.key));
  const extra = Object.keys(d.series).filter((k) => !d.categories.some((c) => c.key === k));
  const columns = [
    ...named.map((c) => ({ key: c.key, label: c.label })),
    ...extra.map((k) => ({ key: k, label: k })),
  ];
  return {
    name: 'Citations',
    columns: [{ header: t('col.engine') }, ...columns.map((c) => ({ header: c.label }))],
    rows: d.engines.map((engine, i) => [engine, ...columns.map((c) => num(d.series[c.key]?.[i], key))]),
  };
});

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
    writeBlocks(w, ctx, [sources, landscapeHistory, byEngine, byIntent, citations]);
  },
};
