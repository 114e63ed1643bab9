/**
 * The snapshot shape the report reads. It is the store's `StoredSnapshot` (src/store/snapshots.ts),
 * restated structurally so the report side compiles and tests on its own: any `StoredSnapshot` is one.
 */
export interface ReportSnapshot {
  id: number;
  account: string;
  brand: { id: number; name: string };
  querySet: { id: number; name: string; details: unknown };
  run: { id: number; display_name: string; created_at: string };
  state: 'pending' | 'partial' | 'settled' | 'complete';
  completedAt: string | null;
  /** Endpoint key → the stored JSON, or the reason it could not be fetched or validated. */
  payloads: Record<string, { data: unknown; error: string | null }>;
}

export interface ReportMeta {
  generatedAt: Date;
  version: string;
  /** BCP 47 tag of the reader (`REPORT_LOCALES`); en-US when absent. */
  locale?: string;
  /** IANA zone the document prints dates in; UTC when absent. */
  timeZone?: string;
  /** What the headline cards compare with (`compare_with`: previous, "4 runs", "52 weeks"); previous when absent. */
  compareWith?: string;
  /** The false discovery rate the report's changes are judged at (`false_discovery_rate`); 0.05 when absent. */
  alpha?: number;
}
