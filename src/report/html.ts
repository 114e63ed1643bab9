import Handlebars from 'handlebars';
import { REPORT_SECTIONS, type ReportSection } from '../config/report-sections.js';
import { reportLocale, t, withLocale } from '../locale/locale.js';
import { trendAlt } from './charts/alt.js';
import { miniStack, THEME } from './charts/svg.js';
import {
  donut,
  engineBars,
  groupedBars,
  heatmap,
  lifeScatter,
  shareBars,
  sparkline,
  stackedBars,
  stackedHistory,
  trendChart,
} from './charts.js';
import { moverView } from './digest/mover-view.js';
import type { PortfolioMove } from './digest/movers.js';
import { formatDisplay, ruleFor } from './format.js';
import type { KpiView } from './model/common.js';
import { SOURCE_KINDS } from './model/gravity.js';
import type { ReportModel } from './model/index.js';
import { STANCES } from './model/life.js';
import type { Available } from './model/payloads.js';
import { familyLine, showsNoise, sparkColor } from './noise-view.js';
import { DEFAULT_PAGE, type PageSetup, pageView } from './page.js';
import { loadReportTemplates, type ReportTemplates } from './templates.js';
import { DEFAULT_THEME, type ThemeView, templateLogo } from './theme/theme.js';

/**
 * Model → HTML. Charts are made here (the model stays plain data) and handed to the templates as
 * `SafeString`s, so templates never need a triple-stash: every other value, API strings included,
 * goes through Handlebars' escaping.
 */

export interface ReportHtml {
  html: string;
  /** For puppeteer's `headerTemplate` / `footerTemplate`: title and page numbers. */
  headerTemplate: string;
  footerTemplate: string;
}

const svg = (markup: string) => new Handlebars.SafeString(markup);

type Card = Available<{ kpi: KpiView }>;

/**
 * A KPI's sparkline, colored like its delta so good and bad news read at a glance, and said in words
 * (where its history started and ended) to a screen reader.
 */
export function kpiSparkline(kpi: KpiView, width?: number, height?: number) {
  const alt = trendAlt(kpi.label, kpi.history, (value) => formatDisplay(value, ruleFor(kpi.key)));
  return svg(sparkline(kpi.history, sparkColor(kpi.delta), alt, width, height));
}

/** A KPI card with its sparkline. */
function card(source: Card) {
  if (!source.available) return source;
  return { ...source, spark: kpiSparkline(source.kpi) };
}

function when<T extends { available: boolean }>(value: T, draw: (v: T & { available: true }) => string) {
  return value.available ? svg(draw(value as T & { available: true })) : null;
}

export function reportView(
  model: ReportModel,
  css: string,
  page: PageSetup = DEFAULT_PAGE,
  /** The pages printed, in order: the first that shows a judged change says the family's size. */
  pages: readonly ReportSection[] = REPORT_SECTIONS,
) {
  const { overview, presence, life, gravity, scout, market } = model;
  const stanceParts = (rows: readonly { value: number | null }[]) =>
    STANCES.map((stance, i) => ({
      name: t(stance.labelKey),
      value: rows[i]?.value ?? 0,
      color: stance.color,
    }));
  const view = {
    css: svg(css),
    /** For `<html lang>`. */
    lang: model.cover.locale,
    page: pageView(page),
    cover: model.cover,
    story: model.story,
    overview: {
      ...overview,
      headline: [
        card(presence.weighted),
        card(life.kpis[0] ?? presence.gross),
        card(gravity.plus),
        card(gravity.openErrors),
      ],
      sharesChart: when(overview.competitive, (c) =>
        shareBars(c.rows, c.fairShare, { title: t('endpoint.overview.competitive-context') }),
      ),
    },
    presence: {
      ...presence,
      gross: card(presence.gross),
      weighted: card(presence.weighted),
      trendChart:
        presence.gross.available && presence.weighted.available
          ? svg(
              trendChart(
                presence.gross.kpi.historyLabels,
                [
                  {
                    name: t('endpoint.presence.gross'),
                    values: presence.gross.kpi.history,
                    color: THEME.secondary,
                  },
                  {
                    name: t('endpoint.presence.weighted'),
                    values: presence.weighted.kpi.history,
                    color: THEME.primary,
                  },
                ],
                { title: t('presence.trend') },
              ),
            )
          : null,
      positionsChart: when(presence.positions, (p) =>
        groupedBars(
          p.parts.map((part) => part.label),
          [
            {
              name: t('chart.previousRun'),
              color: THEME.other,
              values: p.parts.map((part) => part.previous.value ?? 0),
            },
            {
              name: t('chart.thisRun'),
              color: THEME.primary,
              values: p.parts.map((part) => part.current.value ?? 0),
            },
          ],
          { title: t('presence.positions'), width: 260, height: 200 },
        ),
      ),
      matrixChart: when(presence.matrix, (m) =>
        heatmap(
          m.engines.map((e) => e.label),
          m.intents.map((i) => i.label),
          m.values,
          { title: t('endpoint.presence.engine-intent-matrix') },
        ),
      ),
    },
    life: {
      ...life,
      kpis: life.kpis.map(card),
      mixChart: when(life.stanceMix, (mix) =>
        stackedBars(
          [t('chart.thisRun'), t('chart.previousRun')],
          STANCES.map((stance, i) => ({
            name: t(stance.labelKey),
            color: stance.color,
            values: [mix.current[i]?.value ?? 0, mix.previous[i]?.value ?? 0],
          })),
          { title: t('endpoint.life.stance-mix'), height: 140 },
        ),
      ),
      historyChart: when(life.stanceHistory, (h) =>
        stackedHistory(
          h.measurements,
          STANCES.map((stance, i) => ({
            name: t(stance.labelKey),
            color: stance.color,
            values: h.series[i] ?? [],
          })),
          { title: t('endpoint.life.stance-history') },
        ),
      ),
      scatterChart: when(life.scatter, (s) =>
        lifeScatter(
          s.points,
          { presence: s.presenceCurrent, life: s.lifeCurrent },
          { title: t('endpoint.life.scatter') },
        ),
      ),
      byEngine: withStanceBars(life.byEngine, stanceParts),
      byIntent: withStanceBars(life.byIntent, stanceParts),
      stanceLegend: STANCES.map((stance) => ({ label: t(stance.labelKey), color: stance.color })),
    },
    gravity: {
      ...gravity,
      kpis: [card(gravity.plus), card(gravity.minus), card(gravity.openErrors)],
      trendChart: when(gravity.trend, (trend) =>
        trendChart(
          trend.labels,
          [
            { name: t('endpoint.gravity.gravity-plus'), values: trend.plus, color: THEME.good },
            { name: t('endpoint.gravity.gravity-minus'), values: trend.minus, color: THEME.bad },
          ],
          { title: t('endpoint.gravity.trend') },
        ),
      ),
      sourcesChart: when(gravity.sources, (s) =>
        donut(
          s.parts.map((p) => ({ name: p.label, value: p.value ?? 0, color: p.color })),
          { title: t('endpoint.gravity.source-distribution'), width: 330, height: 200 },
        ),
      ),
      sourcesHistoryChart: when(gravity.sourcesHistory, (h) =>
        stackedHistory(
          h.measurements,
          SOURCE_KINDS.map((kind, i) => ({
            name: t(kind.labelKey),
            color: kind.color,
            values: h.series[i] ?? [],
          })),
          { title: t('gravity.sourcesOverTime'), width: 330, height: 200 },
        ),
      ),
    },
    scout: {
      ...scout,
      stats: scout.stats.available
        ? {
            available: true,
            kpis: scout.stats.kpis.map((kpi) => card({ available: true, kpi })),
          }
        : scout.stats,
      byEngineChart: when(scout.byEngine, (b) =>
        engineBars(
          b.rows.map((r) => ({ label: r.engine.label, color: r.engine.color, value: r.weighted.value ?? 0 })),
          { title: t('endpoint.scout.references-by-llm'), width: 330 },
        ),
      ),
      citationsChart: when(scout.citations, (c) =>
        groupedBars(
          c.engines,
          c.categories.map((category) => ({
            name: category.label,
            color: category.color,
            values: category.values,
          })),
          { title: t('scout.citationsByEngine'), percent: false },
        ),
      ),
    },
    market: {
      ...market,
      metrics: market.metrics.available
        ? {
            ...market.metrics,
            rows: market.metrics.rows.map((kpi) => ({
              ...kpi,
              spark: kpiSparkline(kpi, 90, 22),
            })),
            fairShareCard: card({ available: true, kpi: market.metrics.fairShare }),
          }
        : market.metrics,
      competitorsChart: when(market.competitors, (c) =>
        shareBars(c.rows, null, { title: t('market.competitors') }),
      ),
    },
  };
  // Which pages print the footnote on judged changes: those that show one (noise-note.hbs). The
  // first printed of them also says how many changes the document judged together, once.
  const shows = (section: ReportSection) => showsNoise(view[section]);
  const first = pages.find(shows);
  const noiseNote = Object.fromEntries(
    REPORT_SECTIONS.map((section) => [
      section,
      shows(section) ? { family: section === first ? familyLine(model.judged) : null } : false,
    ]),
  ) as Record<ReportSection, false | { family: string | null }>;
  return { ...view, noiseNote };
}

function withStanceBars<R extends { stance: { value: number | null }[] }>(
  table: Available<{ rows: R[] }>,
  parts: (rows: readonly { value: number | null }[]) => { name: string; value: number; color: string }[],
) {
  if (!table.available) return table;
  return {
    ...table,
    rows: table.rows.map((row) => ({ ...row, stanceBar: svg(miniStack(parts(row.stance))) })),
  };
}

/** Which parts of a set's report to print (`reports[].sections`, `reports[].detail`). */
export interface ReportContents {
  sections?: readonly ReportSection[];
  detail?: 'full' | 'summary';
  /** The set's biggest moves (the brief's "top movers"); none when absent. */
  movers?: readonly PortfolioMove[];
  /** The report's look (`reports[].theme`, read by `themeView`); reportd's own when absent. */
  theme?: ThemeView;
}

/** The theme as templates read it: its CSS is built from checked colours and names only (theme.ts). */
export function themeForTemplates(theme: ThemeView = DEFAULT_THEME) {
  const { logo, ...rest } = theme;
  return { ...rest, ...(logo ? { logo: templateLogo(logo) } : {}), css: svg(theme.css) };
}

/** The set's view with its `show` flags and the brief's extra rows (templates/report/partials/sections.hbs). */
export function setView(model: ReportModel, css: string, page: PageSetup, contents: ReportContents = {}) {
  const chosen = new Set(contents.sections ?? REPORT_SECTIONS);
  const show = {
    summary: contents.detail === 'summary',
    ...Object.fromEntries(REPORT_SECTIONS.map((s) => [s, chosen.has(s)])),
  };
  // The brief prints the overview only.
  const pages = show.summary ? (['overview'] as const) : REPORT_SECTIONS.filter((s) => chosen.has(s));
  const errors = model.gravity.errors.available ? model.gravity.errors.items.slice(0, 3) : [];
  return {
    ...reportView(model, css, page, pages),
    theme: themeForTemplates(contents.theme),
    show,
    brief: { movers: (contents.movers ?? []).map(moverView), errors },
  };
}

/** Renders the full report and its page header/footer with the given (or packaged) templates. */
export function renderReportHtml(
  model: ReportModel,
  templates: ReportTemplates = loadReportTemplates(),
  page: PageSetup = DEFAULT_PAGE,
  contents: ReportContents = {},
): ReportHtml {
  // Charts and templates print labels and numbers: all of it in the document's locale (withLocale).
  return withLocale(reportLocale(model.cover.locale, model.cover.timeZone), () => {
    const view = setView(model, templates.css, page, contents);
    return {
      html: templates.report(view),
      headerTemplate: templates.header(view),
      footerTemplate: templates.footer(view),
    };
  });
}
