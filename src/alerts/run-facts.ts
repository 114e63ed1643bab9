import type { Judged } from '../insight/changes.js';
import type { InsightRow, SetDetails } from '../insight/sample-sizes.js';
import type { ComparedWith } from './compared-with-text.js';

/** What alert rules read (a set's stored runs) and what they answer (evaluate.ts). */

/** A metric row of a run, as the insight layer reads it (one shape for both). */
export type FactRow = InsightRow;

export interface ErrorEntry {
  id: string;
  title: string;
  correct: string;
  claim: string | null;
  engine: string | null;
}

export interface RunFacts {
  runId: number;
  label: string;
  /** When the run was published (ISO): a `compare_with` calendar offset is counted from it. */
  createdAt?: string;
  rows: readonly FactRow[];
  /** Error register entries; undefined when that endpoint was unavailable for the run. */
  errors?: readonly ErrorEntry[];
  /** Competitive shares; undefined when unavailable. */
  shares?: readonly { name: string; share: number; isBrand: boolean }[];
  /** `presence.weighted`'s classification; undefined when unavailable. */
  classification?: string;
  /** The set details (queries, engines): a fallback for the sample sizes when a run lacks its counts. */
  details?: SetDetails;
}

export interface Firing {
  rule: number;
  kind: 'change' | 'value' | 'new_error' | 'competitor_overtakes' | 'classification_change';
  /** One line saying what fired, plain text (escaped where it becomes HTML). */
  headline: string;
  /** The machine id `<endpoint>.<field>` (webhook JSON keeps it beside the name). */
  metric?: string;
  /** What a person reads for the metric, member included ("Gross presence on ChatGPT"). */
  metricName?: string;
  /**
   * What the rule measured against: the run `compare_with` chose (the previous one by default), or
   * for `baseline: mean_of_last_4` the mean of runs (`id` null). Absent on events.
   */
  comparedWith?: ComparedWith;
  /**
   * The noise model's verdict on a change, judged with the other figures the rule watches in the run
   * (Holm, metric-rule.ts): its interval in points at `level`, its p, its adjusted q, how many
   * figures were judged together, and n on each side.
   */
  significance?: Exclude<Judged['significance'], 'invalid'>;
  interval?: { low: number; high: number } | null;
  level?: number | null;
  p?: number | null;
  q?: number | null;
  familySize?: number | null;
  n?: { before: number | null; after: number | null } | null;
  /** With `for_runs`: how many runs the change has held. */
  forRuns?: number;
  member?: string;
  before?: string;
  after?: string;
  change?: string;
  /** The metric over the stored runs, on its display scale (points for shares), for the chart. */
  series?: { label: string; value: number }[];
  errors?: { id: string; title: string; correct: string; claims: string[]; engines: string[] }[];
}

export interface Skipped {
  rule: number;
  reason: string;
}

export interface Evaluation {
  firings: Firing[];
  skipped: Skipped[];
}
