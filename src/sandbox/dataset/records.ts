import type { BrandDef, CompetitorDef, QuerySetDef } from './catalog.js';
import type { GravityErrorDef } from './error-register.js';
import type { SourceDef } from './sources.js';

/**
 * What the data set keeps per query set and run. Declared apart from dataset.ts so the answer model
 * (answers/) can read a set without importing the data set that calls it.
 */

export interface RunRecord {
  id: number;
  display_name: string;
  created_at: string;
  /** Position in the set's run list; metric values are addressed by it. */
  index: number;
  publishedAt: number;
  periodMonday: number;
}

export interface SetRecord {
  def: QuerySetDef;
  brand: BrandDef;
  competitors: readonly CompetitorDef[];
  errors: readonly GravityErrorDef[];
  sources: readonly SourceDef[];
  runs: RunRecord[];
  /** Rates do not drift from run to run (DatasetOptions.quiet). */
  quiet: boolean;
  /** Competitor names carry hostile strings (DatasetOptions.hostile). */
  hostile: boolean;
  /** Points added to the brand's presence rate from a run index on (published falls; they last). */
  shifts: Map<number, number>;
  /** Published runs' pins: their number of answers, and the change of gross presence they carry. */
  pins: Map<number, { grossChange?: number; answers?: number }>;
}
