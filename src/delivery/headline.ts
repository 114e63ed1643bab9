import { reportLocale, t, withLocale } from '../locale/locale.js';
import type { KpiView } from '../report/model/common.js';
import type { ReportModel } from '../report/model/index.js';
import type { Available } from '../report/model/payloads.js';
import { familyLine } from '../report/noise-view.js';
import type { StoredSnapshot } from '../store/snapshots.js';
import type { DigestEmailSet, EmailContent, HeadlineKpi, ReportFile } from './content.js';

/**
 * The few numbers an executive reads in the email body before (or instead of) opening the PDF. Taken
 * from the view model the PDF was drawn from (one source: the same validation, number rules, locale
 * and labels), so the email and the PDF never disagree, and the payloads are not read a second time.
 */

/** The headline cards in the order the email shows them; a card the PDF marks unavailable is left out. */
const HEADLINES: readonly ((model: ReportModel) => Available<{ kpi: KpiView }> | undefined)[] = [
  (model) => model.presence.weighted,
  (model) => model.presence.gross,
  (model) => model.life.kpis.find((card) => card.available && card.kpi.key === 'life.kpi'),
  (model) => model.gravity.plus,
  (model) => model.gravity.minus,
  (model) => model.gravity.openErrors,
];

/** KPIs the PDF shows as numbers, in the model's locale; a missing card is left out, not shown as a dash. */
export function headlineKpis(model: ReportModel): HeadlineKpi[] {
  return HEADLINES.flatMap((pick) => {
    const card = pick(model);
    if (!card?.available) return [];
    const { label, value, delta, versus } = card.kpi;
    // "as reported by the service", or why the value shows "—": said where the change is.
    const note = delta.note ? ` (${delta.note})` : '';
    return [
      {
        label,
        value,
        // Against an older run (`compare_with`) the email says which, or that none is stored that old.
        delta: (versus ? (delta.available ? `${delta.text} ${versus}` : versus) : delta.text) + note,
        ...(delta.interval ? { interval: delta.interval } : {}),
        ...(delta.verdict ? { verdict: delta.verdict } : {}),
        arrow: delta.arrow,
        meaning: delta.meaning,
        said: delta.said,
        good: delta.tone === 'good',
        bad: delta.tone === 'bad',
      },
    ];
  });
}

/**
 * The email's footnote on its judged changes, as the PDF's: what an interval is, and once how many
 * changes the report judged together. The email quotes the report's verdicts (the same model), so
 * its headline and story never disagree with the PDF attached to it. None when nothing was judged.
 */
export function noiseNote(model: ReportModel): string | undefined {
  if (model.judged.size === 0) return undefined;
  // The email marks its headline cards only: it states how many of the run's likely changes those are.
  const shown = headlineKpis(model).filter((kpi) => kpi.verdict === 'likely').length;
  return withLocale(reportLocale(model.cover.locale, model.cover.timeZone), () =>
    `${t('delta.noiseFootnote')} ${familyLine(model.judged, shown)}`.trim(),
  );
}

/** The overview summary as one short paragraph (the PDF has the full text). */
export function headlineSummary(model: ReportModel, maxChars = 600): string | undefined {
  const summary = model.overview.summary;
  if (!summary.available) return undefined;
  const text = summary.paragraphs.flat().join(' ').replace(/\s+/g, ' ').trim();
  if (!text) return undefined;
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1).trimEnd()}…`;
}

/**
 * What the email says about a snapshot and which files it carries: one builder for every sender. The
 * model is the one the render built (`renderSnapshotDocuments`), so the locale is already in it.
 */
export function emailContentFor(
  snapshot: StoredSnapshot,
  model: ReportModel,
  files: ReportFile[],
): EmailContent {
  return {
    // A brand with no name still needs a subject that says what the report is about.
    brand: snapshot.brand.name || `query set ${snapshot.querySet.id}`,
    querySet: { id: snapshot.querySet.id, name: snapshot.querySet.name },
    run: { id: snapshot.run.id, display_name: snapshot.run.display_name },
    kpis: headlineKpis(model),
    story: model.story,
    summary: headlineSummary(model),
    noiseNote: noiseNote(model),
    files,
  };
}

/**
 * A digest's email: every set's headline KPIs with deltas, the runs' labels collapsed into the period.
 * Each set's numbers come from the model its section of the digest was drawn from (`renderDigest`),
 * so the email and the PDF never disagree. The first set stands in for the single-set fields
 * (`{{brand}}`, `{{run}}` in a subject template).
 */
export function digestEmailContent(
  sets: readonly { snapshot: StoredSnapshot; model: ReportModel; repeated?: boolean }[],
  files: ReportFile[],
  period: string,
): EmailContent {
  const first = sets[0]!;
  // The "no new run" note in the digest's own words (its locale, as the PDF prints it).
  const words = reportLocale(first.model.cover.locale, first.model.cover.timeZone);
  const digestSets: DigestEmailSet[] = sets.map(({ snapshot, model, repeated }) => ({
    brand: snapshot.brand.name || `query set ${snapshot.querySet.id}`,
    querySet: snapshot.querySet.name,
    run: snapshot.run.display_name,
    querySetId: snapshot.querySet.id,
    runId: snapshot.run.id,
    noNewRun: repeated ? words.t('digest.noNewRun', { run: snapshot.run.display_name }) : undefined,
    kpis: headlineKpis(model),
    // Old news for a run an earlier message carried: its note says so instead.
    ...(repeated ? {} : { story: model.story }),
    noiseNote: noiseNote(model),
  }));
  return {
    ...emailContentFor(first.snapshot, first.model, files),
    summary: undefined,
    // Each set's section says its own (DigestEmailSet.noiseNote).
    noiseNote: undefined,
    digest: { sets: digestSets, period },
  };
}
