import type { z } from 'zod';
import { metricEndpoint } from '../../api/endpoints.js';
import { payloadRows } from '../../api/metric-rows.js';
import type { Baseline } from '../../config/compare-with.js';
import { DEFAULT_ALPHA } from '../../insight/changes.js';
import { runInsight } from '../../insight/run-insight.js';
import {
  COUNT_ENDPOINTS,
  type InsightRow,
  type RunSamples,
  runSamples,
  type SetDetails,
} from '../../insight/sample-sizes.js';
import type { MessageKey } from '../../locale/catalog-en.js';
import { t } from '../../locale/locale.js';
import { ReportFamily } from './family.js';
import type { ReportSnapshot } from './snapshot.js';

/** A card's data, or why it cannot be shown. Templates print `note` in place of the card. */
export type Available<T> = ({ available: true } & T) | Unavailable;

export interface Unavailable {
  available: false;
  /** Visible in the report: "Data unavailable — <title>: <reason>". */
  note: string;
  title: string;
}

/**
 * Reads payloads out of a snapshot, validated against the endpoint's own schema, and records every key
 * it was asked for: the completeness test proves from this record that every metric endpoint reaches
 * the report. A missing, failed or invalid payload is `undefined` plus a reason, never an exception.
 */
export class PayloadReader {
  readonly consumed = new Set<string>();
  private sampleSizes: RunSamples | undefined;

  /** The run's changes against the run it compares with, and their verdicts (family.ts). */
  readonly family: ReportFamily;

  /**
   * @param baseline what the document compares with (`compare_with`, src/config/compare-with.ts).
   * @param alpha the false discovery rate the document's changes are judged at.
   * @param previous the set's stored run before this one, which `previous` compares with.
   */
  constructor(
    private readonly snapshot: ReportSnapshot,
    readonly baseline: Baseline<ReportSnapshot> = { kind: 'previous' },
    alpha: number = DEFAULT_ALPHA,
    previous?: ReportSnapshot,
  ) {
    const against =
      baseline.kind === 'run' ? baseline.run : baseline.kind === 'previous' ? previous : undefined;
    const details = setDetails(snapshot);
    this.family = new ReportFamily(
      against && runInsight(snapshotRows(against), snapshotRows(snapshot), details, alpha),
      alpha,
    );
  }

  /** The answers behind each share of this run, by the noise model (src/insight/sample-sizes.ts). */
  samples(): RunSamples {
    if (!this.sampleSizes) {
      // Only the payloads that carry counts: deriving every payload's rows cost more than the model.
      const rows = Object.entries(this.snapshot.payloads).flatMap(([key, stored]) =>
        COUNT_ENDPOINTS.has(key) && stored.error === null && stored.data != null
          ? payloadRows(key, stored.data)
          : [],
      );
      this.sampleSizes = runSamples(rows);
    }
    return this.sampleSizes;
  }

  read<S extends z.ZodType>(
    key: string,
    schema: S,
  ): { ok: true; data: z.infer<S> } | { ok: false; reason: string } {
    this.consumed.add(key);
    const stored = this.snapshot.payloads[key];
    if (!stored) return { ok: false, reason: t('reason.notInSnapshot') };
    if (stored.data === null || stored.data === undefined) {
      return { ok: false, reason: stored.error ? shorten(stored.error) : t('reason.notFetched') };
    }
    // Without zod's compiled fast path: a document parses each payload once, and building the fast
    // path cost more than it saved (PayloadReader.read 49 -> 20 ms of CPU a render, in profiles).
    const parsed = schema.safeParse(stored.data, { jitless: true });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join('.') : 'payload';
      return { ok: false, reason: `invalid payload (${where}: ${issue?.message ?? 'unexpected shape'})` };
    }
    return { ok: true, data: parsed.data };
  }

  /**
   * The endpoint's title with the reason, ready for a "data unavailable" card, in the document's
   * language. The reason stays as the API or the validator wrote it: it is a diagnostic to quote to
   * support, not prose.
   */
  unavailable(key: string, reason: string): Unavailable {
    const title = t(`endpoint.${metricEndpoint(key).key}` as MessageKey);
    return { available: false, title, note: t('unavailable.note', { title, reason }) };
  }
}

/** Every metric row of a snapshot's valid payloads, as the store derives them (store/metric-values.ts). */
export function snapshotRows(snapshot: ReportSnapshot): InsightRow[] {
  return Object.entries(snapshot.payloads).flatMap(([key, stored]) =>
    stored.error === null && stored.data != null ? payloadRows(key, stored.data) : [],
  );
}

/** The set details the n falls back on (insight/run-changes.ts `setDetailsOf` reads the same field). */
function setDetails(snapshot: ReportSnapshot): SetDetails {
  const details = snapshot.querySet.details as { queries_count?: unknown } | null | undefined;
  return typeof details?.queries_count === 'number' ? { queriesCount: details.queries_count } : {};
}

function shorten(text: string): string {
  const line = text.split('\n')[0] ?? text;
  return line.length > 140 ? `${line.slice(0, 137)}…` : line;
}
