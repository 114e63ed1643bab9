import { metricEndpoints } from '../../api/endpoints.js';
import { querySetDetails } from '../../api/schemas/catalog.js';
import { engineWithImage } from '../../api/schemas/common.js';
import { buildGravity, type GravityModel } from './gravity.js';
import { buildLife, type LifeModel } from './life.js';
import { buildMarket, type MarketModel } from './market.js';
import { buildOverview, type OverviewModel } from './overview.js';
import { PayloadReader } from './payloads.js';
import { buildPresence, type PresenceModel } from './presence.js';
import { buildScout, type ScoutModel } from './scout.js';
import type { ReportMeta, ReportSnapshot } from './snapshot.js';

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
  /** Run date as people read it: "12 November 2026". */
  runDate: string;
  engines: string[];
  queriesCount: number | null;
  account: string;
  generatedAt: string;
  version: string;
  /** Runs of this set stored locally, this one included. */
  runsStored: number;
  /** Set when the snapshot is not complete: the report says so on the cover. */
  incomplete: string | null;
}

export interface ReportModel {
  cover: CoverModel;
  overview: OverviewModel;
  presence: PresenceModel;
  life: LifeModel;
  gravity: GravityModel;
  scout: ScoutModel;
  market: MarketModel;
  /** Endpoint keys the model read, for the completeness test. */
  consumed: string[];
}

/** Pure: the same snapshot, history and meta always give the same model. */
export function buildReportModel(
  snapshot: ReportSnapshot,
  history: readonly ReportSnapshot[],
  meta: ReportMeta,
): ReportModel {
  const reader = new PayloadReader(snapshot);
  // History is the set's other snapshots, newest first; the current one is never counted twice.
  const earlier = history.filter((past) => past.id !== snapshot.id);
  const model: Omit<ReportModel, 'consumed' | 'cover'> = {
    overview: buildOverview(reader),
    presence: buildPresence(reader, earlier),
    life: buildLife(reader, earlier),
    gravity: buildGravity(reader, earlier),
    scout: buildScout(reader),
    market: buildMarket(reader),
  };
  return { cover: buildCover(snapshot, earlier, meta), ...model, consumed: [...reader.consumed].sort() };
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
  return {
    title: `AI visibility report — ${snapshot.brand.name}`,
    brand: snapshot.brand.name,
    querySet: snapshot.querySet.name,
    querySetId: snapshot.querySet.id,
    run: snapshot.run.display_name,
    runId: snapshot.run.id,
    runDate: longDate(snapshot.run.created_at),
    engines,
    queriesCount: details.success ? details.data.queries_count : null,
    account: snapshot.account,
    generatedAt: `${meta.generatedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    version: meta.version,
    runsStored: earlier.length + 1,
    incomplete,
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
    return `Data unavailable for ${failed.join(', ')}: the API's answer no longer matches what reportd expects (the endpoint drifted); every other section is complete.`;
  }
  return `This snapshot is ${snapshot.state}: some cards show "data unavailable" until the sync completes.`;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** The calendar day of an ISO timestamp as written (its own offset), e.g. "12 November 2026". */
export function longDate(iso: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  if (!match) return iso;
  const month = MONTHS[Number(match[2]) - 1];
  return month ? `${Number(match[3])} ${month} ${match[1]}` : iso;
}
