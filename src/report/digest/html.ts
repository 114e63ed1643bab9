import Handlebars from 'handlebars';
import { reportLocale, t, withLocale } from '../../locale/locale.js';
import { type ReportContents, setView, themeForTemplates } from '../html.js';
import type { ReportModel } from '../model/index.js';
import { showsNoise } from '../noise-view.js';
import { DEFAULT_PAGE, type PageSetup, pageView } from '../page.js';
import type { ReportTemplates } from '../templates.js';
import { kpiSparkline } from '../view/common.js';
import { type MoverView, moverView } from './mover-view.js';
import type { PortfolioMove } from './movers.js';

/**
 * Digest model → HTML: a cover, a contents page, the portfolio page (one row per set, biggest mover
 * first, then the biggest changes across the portfolio), then each set's sections under its own h1.
 */

export interface DigestSet {
  model: ReportModel;
  /** This set's run was already in an earlier message: marked "No new run since <run>". */
  repeated?: boolean;
  /** This set's moves (the brief's "top movers"). */
  moves: PortfolioMove[];
}

export interface DigestInput {
  report: string;
  sets: DigestSet[];
  moves: PortfolioMove[];
  locale?: string;
  timeZone?: string;
  page?: PageSetup;
  contents: Omit<ReportContents, 'movers'>;
  /** The covered runs' period (`periodOf`), printed on the cover. */
  period: string;
  /** Page of the portfolio and of each set, from a first render; blank on the first render. */
  pages?: DigestPages;
  /** Only the cover and the contents (the second pass of the PDF, digest/render.ts). */
  frontOnly?: boolean;
}

/** Where the contents page says the portfolio and each set start (1-based pages). */
export interface DigestPages {
  portfolio: number;
  sets: number[];
}

const svg = (markup: string) => new Handlebars.SafeString(markup);

/**
 * The runs' labels, collapsed when equal: "Week 37", or oldest to newest "Week 36 – Week 37" (by
 * the runs' times, not the sets' order: a set with a newer run may come first).
 */
export function periodOf(runs: readonly { display_name: string; created_at: string }[]): string {
  const time = (run: { created_at: string }) => Date.parse(run.created_at) || 0;
  const ordered = [...runs].sort((a, b) => time(a) - time(b));
  const distinct = [...new Set(ordered.map((run) => run.display_name))];
  return distinct.length <= 1 ? (distinct[0] ?? '') : `${distinct[0]} – ${distinct.at(-1)}`;
}

/** How much a set's headline moved, for the portfolio's order: the largest change of any card. */
function moverScore(model: ReportModel): number {
  const cards = [model.presence.weighted, model.presence.gross, model.gravity.plus, model.gravity.openErrors];
  let best = 0;
  for (const card of cards) {
    if (!card.available) continue;
    const [previous, current] = card.kpi.history.slice(-2);
    if (previous === undefined || current === undefined) continue;
    best = Math.max(best, Math.abs(current - previous) / Math.max(Math.abs(previous), 1));
  }
  return best;
}

export function renderDigestHtml(input: DigestInput, templates: ReportTemplates) {
  const page = input.page ?? DEFAULT_PAGE;
  const locale = reportLocale(input.locale, input.timeZone);
  return renderWithin(input, templates, page, locale);
}

function renderWithin(
  input: DigestInput,
  templates: ReportTemplates,
  page: NonNullable<DigestInput['page']>,
  locale: ReturnType<typeof reportLocale>,
) {
  return withLocale(locale, () => {
    const first = input.sets[0]!.model.cover;
    const heading = (m: ReportModel) => `${m.cover.brand} — ${m.cover.querySet} · ${m.cover.run}`;
    const cover = {
      title: t('digest.title', { report: input.report }),
      querySet: t('digest.sets', { count: input.sets.length }),
      run: input.period,
      generatedAt: first.generatedAt,
      version: first.version,
      generatedLine: t('report.generated', { date: first.generatedAt, version: first.version }),
    };
    // The front-matter pass prints only the cover and the contents: no portfolio, no set drawn.
    const portfolio = (input.frontOnly ? [] : input.sets)
      .map((set) => ({ set, score: moverScore(set.model) }))
      .sort((a, b) => b.score - a.score)
      .map(({ set }) => ({
        brand: set.model.cover.brand,
        querySet: set.model.cover.querySet,
        run: set.model.cover.run,
        noNewRun: set.repeated ? t('digest.noNewRun', { run: set.model.cover.run }) : undefined,
        /** The set's story of the run (report/model/story.ts), under its row. */
        story: set.model.story.join(' '),
        kpis: [set.model.presence.weighted, set.model.gravity.plus, set.model.gravity.openErrors].flatMap(
          (card) =>
            card.available
              ? [
                  {
                    label: card.kpi.label,
                    value: card.kpi.value,
                    delta: card.kpi.delta,
                    spark: kpiSparkline(card.kpi),
                  },
                ]
              : [],
        ),
      }));
    const movers: MoverView[] = input.frontOnly ? [] : input.moves.map(moverView);
    const view = {
      css: svg(templates.css),
      theme: themeForTemplates(input.contents?.theme),
      lang: locale.tag,
      page: pageView(page),
      cover,
      portfolio,
      /** The portfolio page explains grey "±" changes when it shows one (noise-note.hbs). */
      portfolioNoise: showsNoise(portfolio),
      movers,
      frontOnly: input.frontOnly === true,
      // Before the numbers are known, the contents hold hidden placeholders as wide as a page number
      // will be: filling them in then cannot make the contents longer and move the sets.
      tocPending: !input.pages,
      portfolioPage: input.pages ? String(input.pages.portfolio) : '',
      sets: input.sets.map((set, i) => ({
        heading: heading(set.model),
        tocPage: input.pages ? String(input.pages.sets[i] ?? '') : '',
        noNewRun: set.repeated ? t('digest.noNewRun', { run: set.model.cover.run }) : undefined,
        view: input.frontOnly
          ? undefined
          : setView(set.model, templates.css, page, { ...input.contents, movers: set.moves }),
      })),
    };
    return {
      html: templates.digest(view),
      headerTemplate: templates.header({ cover, theme: view.theme }),
      footerTemplate: templates.footer({ cover, theme: view.theme }),
    };
  });
}
