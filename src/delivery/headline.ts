import { formatDelta, formatValue, polarityOf, ruleFor } from '../report/format.js';
import { type MessageKey, reportLocale, t, withLocale } from '../report/locale/locale.js';
import type { StoredSnapshot } from '../store/snapshots.js';
import type { DigestEmailSet, EmailContent, ReportFile } from './email.js';

/**
 * The few numbers an executive reads in the email body before (or instead of) opening the PDF. Built
 * straight from the stored payloads with the report's own number rules (src/report/format.ts), so the
 * email and the PDF never disagree on how a value shows.
 */
export interface HeadlineKpi {
  label: string;
  value: string;
  delta: string;
  arrow: string;
  good: boolean;
  bad: boolean;
}

/** Stored payloads of one snapshot: endpoint key → JSON (null when it could not be fetched). */
export type PayloadMap = Record<string, { data: unknown; error: string | null } | undefined>;

/** Labelled with the endpoint's title (`endpoint.<key>` in the catalogs). */
const HEADLINES: readonly { key: string; field?: string }[] = [
  { key: 'presence.weighted' },
  { key: 'presence.gross' },
  { key: 'life.kpi' },
  { key: 'gravity.gravity-plus' },
  { key: 'gravity.gravity-minus' },
  { key: 'gravity.open-errors', field: 'count' },
];

const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/**
 * KPIs whose payload is present and numeric; a missing card is left out rather than shown as a dash.
 * Labels and numbers are in `locale` (a `REPORT_LOCALES` tag, en-US by default).
 */
export function headlineKpis(payloads: PayloadMap, locale?: string): HeadlineKpi[] {
  return withLocale(reportLocale(locale), () => collectKpis(payloads));
}

function collectKpis(payloads: PayloadMap): HeadlineKpi[] {
  const out: HeadlineKpi[] = [];
  for (const { key, field = 'current' } of HEADLINES) {
    const card = record(payloads[key]?.data);
    const current = card?.[field];
    if (typeof current !== 'number' || !Number.isFinite(current)) continue;
    const rule = ruleFor(key);
    const delta = formatDelta(card?.delta, rule, polarityOf(key));
    out.push({
      label: t(`endpoint.${key}` as MessageKey),
      value: formatValue(current, rule),
      delta: delta.text,
      arrow: delta.arrow,
      good: delta.tone === 'good',
      bad: delta.tone === 'bad',
    });
  }
  return out;
}

/** The overview summary as one short paragraph (the PDF has the full text). */
export function headlineSummary(payloads: PayloadMap, maxChars = 600): string | undefined {
  const content = record(payloads['overview.summary']?.data)?.content;
  if (typeof content !== 'string') return undefined;
  const text = content.replace(/\s+/g, ' ').trim();
  if (!text) return undefined;
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1).trimEnd()}…`;
}

/** What the email says about a snapshot and which files it carries: one builder for every sender. */
export function emailContentFor(
  snapshot: StoredSnapshot,
  files: ReportFile[],
  locale?: string,
): EmailContent {
  return {
    // A brand with no name still needs a subject that says what the report is about.
    brand: snapshot.brand.name || `query set ${snapshot.querySet.id}`,
    querySet: { id: snapshot.querySet.id, name: snapshot.querySet.name },
    run: { id: snapshot.run.id, display_name: snapshot.run.display_name },
    kpis: headlineKpis(snapshot.payloads, locale),
    summary: headlineSummary(snapshot.payloads),
    files,
  };
}

/**
 * A digest's email: every set's headline KPIs with deltas, the runs' labels collapsed into the period.
 * The first set stands in for the single-set fields (`{{brand}}`, `{{run}}` in a subject template).
 */
export function digestEmailContent(
  sets: readonly { snapshot: StoredSnapshot; repeated?: boolean }[],
  files: ReportFile[],
  period: string,
  locale?: string,
): EmailContent {
  const first = emailContentFor(sets[0]!.snapshot, files, locale);
  const words = reportLocale(locale);
  const digestSets: DigestEmailSet[] = sets.map(({ snapshot, repeated }) => ({
    brand: snapshot.brand.name || `query set ${snapshot.querySet.id}`,
    querySet: snapshot.querySet.name,
    run: snapshot.run.display_name,
    querySetId: snapshot.querySet.id,
    runId: snapshot.run.id,
    noNewRun: repeated ? words.t('digest.noNewRun', { run: snapshot.run.display_name }) : undefined,
    kpis: headlineKpis(snapshot.payloads, locale),
  }));
  return { ...first, summary: undefined, digest: { sets: digestSets, period } };
}
