import { metricEndpoints } from '../../api/endpoints.js';
import { querySetDetails } from '../../api/schemas/catalog.js';
import { engineWithImage } from '../../api/schemas/common.js';
import { type Baseline, PREVIOUS, parseComparison, resolveBaseline } from '../../config/compare-with.js';
import type { FamilySummary } from '../../insight/run-insight.js';
import { currentLocale, reportLocale, t, withLocale } from '../../locale/locale.js';
import type { ReportFamily } from './family.js';
import { buildGravity, type GravityModel } from './gravity.js';
import { buildLife, type LifeModel } from './life.js';
import { buildMarket, type MarketModel } from './market.js';
import { buildOverview, type OverviewModel } from './overview.js';
import { PayloadReader } from './payloads.js';
import { buildPresence, type PresenceModel } from './presence.js';
import { buildScout, type ScoutModel } from './scout.js';
import type { ReportMeta, ReportSnapshot } from './snapshot.js';
import { buildStory, claimKeys, type StoryBefore } from './story.js';

export type { ReportMeta, ReportSnapshot } from './snapshot.js';

/**
 * Every metric endpoint the PDF shows. All 34 today; the completeness test checks this list against
 * what `buildReportModel` actually reads, and (with the workbook's `XLSX_ENDPOINTS`) against the catalog.
 */
export const PDF_ENDPOINTS: readonly string[] = metricEndpoints.map((endpoint) => endpoint.key);

export interface CoverModel {
  title: string;
  brand: string;
  querySet: string;
  querySetId: number;
  run: string;
  runId: number;
  /** Run date as the reader writes it, in the document's zone: "15. Oktober 2026". */
  runDate: string;
  engines: string[];
  queriesCount: number | null;
  account: string;
  generatedAt: string;
  version: string;
  /**
   * Runs on record, this one included: as many as the document's charts draw (the API's history of a
   * figure), or the runs of this set stored locally when those are more. One number, so the cover
   * never says 3 beside charts of 11 runs.
   */
  runsStored: number;
  /** Set when the snapshot is not complete: the report says so on the cover. */
  incomplete: string | null;
  /** BCP 47 tag of the document (`<html lang>`) and the zone its dates are printed in. */
  locale: string;
  timeZone: string;
}

export interface ReportModel {
  cover: CoverModel;
  overview: OverviewModel;
  presence: PresenceModel;
  life: LifeModel;
  gravity: GravityModel;
  scout: ScoutModel;
  market: MarketModel;
  /** Three to five sentences on the run, from the rows above (see story.ts). */
  story: string[];
  /** The document's judged changes: how many, how many likely, at which α (family.ts). */
  judged: FamilySummary;
  /** Endpoint keys the model read, for the completeness test. */
  consumed: string[];
}

/** Pure: the same snapshot, history and meta always give the same model. */
export function buildReportModel(
  snapshot: ReportSnapshot,
  history: readonly ReportSnapshot[],
  meta: ReportMeta,
): ReportModel {
  return buildWithFamily(snapshot, history, meta).model;
}

/**
 * The judged changes of the report these inputs make, with their verdicts: the workbook of a run
 * shows the same figures and reads its verdicts from here, so the two never disagree.
 */
export function reportFamily(
  snapshot: ReportSnapshot,
  history: readonly ReportSnapshot[],
  meta: ReportMeta,
): ReportFamily {
  return buildWithFamily(snapshot, history, meta).family;
}

function buildWithFamily(
  snapshot: ReportSnapshot,
  history: readonly ReportSnapshot[],
  meta: ReportMeta,
): { model: ReportModel; family: ReportFamily } {
  const locale = reportLocale(meta.locale, meta.timeZone);
  // Every label and number of the model is written in the reader's locale (see withLocale).
  return withLocale(locale, () => {
    // History is the set's other snapshots, newest first. Only runs older than this one count: a
    // report of run 101 rendered (or retried) after run 102 was synced must not compare with 102.
    const earlier = history.filter((past) => past.id !== snapshot.id && olderRun(past, snapshot));
    const reader = new PayloadReader(
      snapshot,
      baselineOf(snapshot, earlier, meta.compareWith),
      meta.alpha,
      earlier[0],
    );
    const model: Omit<ReportModel, 'consumed' | 'cover' | 'story' | 'judged'> = {
      overview: buildOverview(reader),
      presence: buildPresence(reader, earlier),
      life: buildLife(reader, earlier),
      gravity: buildGravity(reader, earlier),
      scout: buildScout(reader),
      market: buildMarket(reader),
    };
    const judged = reader.family.settle();
    return {
      family: reader.family,
      model: {
        cover: {
          ...buildCover(snapshot, earlier, meta),
          runsStored: runsOnRecord(model, earlier.length + 1),
        },
        ...model,
        story: buildStory(model, storyBefore(reader.baseline, earlier)),
        judged,
        consumed: [...reader.consumed].sort(),
      },
    };
  });
}

/** The most runs any chart of the model draws (its longest `historyLabels`), or `stored` when more. */
function runsOnRecord(model: unknown, stored: number): number {
  let most = stored;
  const visit = (view: unknown, depth: number): void => {
    if (view === null || typeof view !== 'object' || depth > 8) return;
    if (Array.isArray(view)) {
      for (const item of view) visit(item, depth + 1);
      return;
    }
    const record = view as Record<string, unknown>;
    if (Array.isArray(record.historyLabels)) most = Math.max(most, record.historyLabels.length);
    for (const child of Object.values(record)) visit(child, depth + 1);
  };
  visit(model, 0);
  return most;
}

/** Whether `past`'s run was published before `current`'s (ties by run id). */
function olderRun(past: ReportSnapshot, current: ReportSnapshot): boolean {
  const a = Date.parse(past.run.created_at);
  const b = Date.parse(current.run.created_at);
  return a < b || (a === b && past.run.id < current.run.id);
}

/**
 * What the story compares with, from the run the cards compare with: its share-of-voice rows (for
 * overtakes) and its false claims (so only new ones are told as new); nothing without such a run.
 */
function storyBefore(baseline: Baseline<ReportSnapshot>, earlier: readonly ReportSnapshot[]): StoryBefore {
  const before =
    baseline.kind === 'run' ? baseline.run : baseline.kind === 'previous' ? earlier[0] : undefined;
  if (!before) return { shares: [] };
  const reader = new PayloadReader(before);
  const competitive = buildOverview(reader).competitive;
  const errors = buildGravity(reader, []).errors;
  return {
    shares: competitive.available ? competitive.rows : [],
    ...(errors.available ? { claims: new Set(errors.items.flatMap(claimKeys)) } : {}),
  };
}

/** The run the headline cards compare with, as `compare_with` asks (an unreadable value counts as previous). */
function baselineOf(
  snapshot: ReportSnapshot,
  earlier: readonly ReportSnapshot[],
  compareWith: string | undefined,
): Baseline<ReportSnapshot> {
  const comparison = compareWith === undefined ? PREVIOUS : (parseComparison(compareWith) ?? PREVIOUS);
  const dated = (s: ReportSnapshot) => ({ id: s.run.id, createdAt: s.run.created_at, snapshot: s });
  const found = resolveBaseline(comparison, dated(snapshot), earlier.map(dated));
  return found.kind === 'run' ? { kind: 'run', run: found.run.snapshot } : found;
}

function buildCover(
  snapshot: ReportSnapshot,
  earlier: readonly ReportSnapshot[],
  meta: ReportMeta,
): CoverModel {
  const details = querySetDetails.safeParse(snapshot.querySet.details);
  let engines = details.success ? details.data.engines.map((engine) => engine.name) : [];
  if (engines.length === 0) {
    // Older snapshots may lack details; the presence payload lists the same engines.
    const fromPayload = engineWithImage
      .array()
      .safeParse(
        (snapshot.payloads['presence.by-engine']?.data as { engines?: unknown } | undefined)?.engines,
      );
    engines = fromPayload.success ? fromPayload.data.map((engine) => engine.label) : [];
  }
  const incomplete = coverWarning(snapshot);
  const locale = currentLocale();
  return {
    title: t('report.title', { brand: snapshot.brand.name }),
    brand: snapshot.brand.name,
    querySet: snapshot.querySet.name,
    querySetId: snapshot.querySet.id,
    run: snapshot.run.display_name,
    runId: snapshot.run.id,
    runDate: locale.longDate(snapshot.run.created_at),
    engines,
    queriesCount: details.success ? details.data.queries_count : null,
    account: snapshot.account,
    generatedAt: locale.dateTime(meta.generatedAt),
    version: meta.version,
    runsStored: earlier.length + 1,
    incomplete,
    locale: locale.tag,
    timeZone: locale.timeZone,
  };
}

/** The cover's one line for a snapshot that is not complete, naming what is missing and why. */
function coverWarning(snapshot: ReportSnapshot): string | null {
  if (snapshot.state === 'complete') return null;
  const failed = Object.entries(snapshot.payloads)
    .filter(([, payload]) => payload.error !== null)
    .map(([key]) => key)
    .sort();
  if (snapshot.state === 'settled') {
    // Settled: the API kept answering these endpoints in a shape reportd does not know. Waiting will
    // not fix it, so the report goes out and says exactly what it lacks.
    return t('cover.settled', { endpoints: failed.join(', ') });
  }
  return t('cover.incomplete');
}
