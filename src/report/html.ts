import { REPORT_SECTIONS, type ReportSection } from '../config/report-sections.js';
import { reportLocale, withLocale } from '../locale/locale.js';
import { moverView } from './digest/mover-view.js';
import type { PortfolioMove } from './digest/movers.js';
import type { ReportModel } from './model/index.js';
import { familyLine, likelyShown, showsNoise } from './noise-view.js';
import { DEFAULT_PAGE, type PageSetup, pageView } from './page.js';
import { loadReportTemplates, type ReportTemplates } from './templates.js';
import { DEFAULT_THEME, type ThemeView, templateLogo } from './theme/theme.js';
import { svg } from './view/common.js';
import { gravityView } from './view/gravity.js';
import { lifeView } from './view/life.js';
import { marketView } from './view/market.js';
import { overviewView } from './view/overview.js';
import { presenceView } from './view/presence.js';
import { scoutView } from './view/scout.js';

/**
 * Model → HTML. Charts are made by each page's view (view/; the model stays plain data) and handed
 * to the templates as `SafeString`s, so templates never need a triple-stash: every other value, API
 * strings included, goes through Handlebars' escaping.
 */

export interface ReportHtml {
  html: string;
  /** For puppeteer's `headerTemplate` / `footerTemplate`: title and page numbers. */
  headerTemplate: string;
  footerTemplate: string;
}

export function reportView(
  model: ReportModel,
  css: string,
  page: PageSetup = DEFAULT_PAGE,
  /** The pages printed, in order: the first that shows a judged change says the family's size. */
  pages: readonly ReportSection[] = REPORT_SECTIONS,
) {
  // One builder per page (view/), called in page order.
  const view = {
    css: svg(css),
    /** For `<html lang>`. */
    lang: model.cover.locale,
    page: pageView(page),
    cover: model.cover,
    story: model.story,
    overview: overviewView(model),
    presence: presenceView(model.presence),
    life: lifeView(model.life),
    gravity: gravityView(model.gravity),
    scout: scoutView(model.scout),
    market: marketView(model.market),
  };
  // Which pages print the footnote on judged changes: those that show one (noise-note.hbs). The
  // first printed of them also says how many changes the document judged together, once.
  const shows = (section: ReportSection) => showsNoise(view[section]);
  const first = pages.find(shows);
  // Counted over the printed pages only: a section left out shows none of its changes.
  const shown = new Set<string>();
  for (const section of pages) likelyShown(view[section], shown);
  const noiseNote = Object.fromEntries(
    REPORT_SECTIONS.map((section) => [
      section,
      shows(section) ? { family: section === first ? familyLine(model.judged, shown.size) : null } : false,
    ]),
  ) as Record<ReportSection, false | { family: string | null }>;
  return { ...view, noiseNote };
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
