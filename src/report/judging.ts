import type { ReportConfig } from '../config/schema.js';
import { VERSION } from '../version.js';
import type { ReportMeta } from './model/snapshot.js';

/**
 * How a report judges its changes, as its config says it: `compare_with` (what the headline cards
 * compare with) and `false_discovery_rate` (the family's α). Typed from the schema, so renaming
 * either key there breaks the build wherever it is read, and translated here once, for the documents
 * (render.ts `documentSettings`) and for `require_likely_change` (delivery/likely-change.ts) alike.
 */
export type JudgingConfig = Partial<Pick<ReportConfig, 'compare_with' | 'false_discovery_rate'>>;

/** The same in the report model's terms. */
export type Judging = Pick<ReportMeta, 'compareWith' | 'alpha'>;

/** `compare_with` → `compareWith`, `false_discovery_rate` → `alpha`; absent keys stay absent. */
export function judging(report: JudgingConfig): Judging {
  return {
    ...(report.compare_with === undefined ? {} : { compareWith: report.compare_with }),
    ...(report.false_discovery_rate === undefined ? {} : { alpha: report.false_discovery_rate }),
  };
}

/** The model's meta of one rendering (a report's or a digest's): now and this version unless given. */
export function documentMeta(options: Partial<ReportMeta>): ReportMeta {
  return {
    generatedAt: options.generatedAt ?? new Date(),
    version: options.version ?? VERSION,
    locale: options.locale,
    timeZone: options.timeZone,
    compareWith: options.compareWith,
    alpha: options.alpha,
  };
}
