import { z } from 'zod';
import { changeOf, type Judged, judgeChange } from '../insight/changes.js';
import type { InsightRow, RunSamples } from '../insight/sample-sizes.js';

/**
 * How the MCP tools say whether a change matters: the noise model's own judgement (`changeOf` of
 * src/insight, the one the reports, alerts and exports read), shaped for an assistant. A row the
 * model does not judge (a field that is itself a change, a breakdown missing in one run) is `unknown`.
 */

export const judgedOut = {
  change: z
    .number()
    .nullable()
    .describe(
      'after − before: percentage points for shares (percent, or fraction × 100), else in `unit`; null when there is no earlier value',
    ),
  significance: z
    .enum(['real', 'noise', 'unknown'])
    .nullable()
    .describe(
      'real: the 95 % interval of the change excludes 0; noise: it contains 0; unknown: not a share of answers, or its n is not known (never called real); null when there is no earlier value',
    ),
  interval_95: z
    .object({ low: z.number(), high: z.number() })
    .nullable()
    .describe("95 % interval of the change (Newcombe's hybrid score, method 10), in the scale of `change`"),
  n_before: z.number().nullable().describe('Answers (or citations) the earlier value was counted on'),
  n_after: z.number().nullable().describe('Answers (or citations) the later value was counted on'),
  n_source: z.string().nullable().describe('Where n comes from, e.g. totalAll ÷ 5 engines'),
};

export type JudgedFields = {
  change: number | null;
  significance: Judged['significance'] | null;
  interval_95: { low: number; high: number } | null;
  n_before: number | null;
  n_after: number | null;
  n_source: string | null;
};

export const NOT_COMPARED: JudgedFields = {
  change: null,
  significance: null,
  interval_95: null,
  n_before: null,
  n_after: null,
  n_source: null,
};

export function judgedFields(judged: Judged): JudgedFields {
  return {
    change: judged.change,
    significance: judged.significance,
    interval_95: judged.low === null || judged.high === null ? null : { low: judged.low, high: judged.high },
    n_before: judged.nBefore,
    n_after: judged.nAfter,
    n_source: judged.nSource,
  };
}

type Keyed = Pick<InsightRow, 'endpoint' | 'field' | 'dimension' | 'dimension_id'>;
export const rowKey = (row: Keyed) =>
  `${row.endpoint}\u0000${row.field}\u0000${row.dimension}\u0000${row.dimension_id ?? ''}`;

/** Judges a row of a run against the same row of an earlier run, as `compareRuns` would. */
export function judgeRow(
  row: InsightRow,
  old: InsightRow | undefined,
  samples: { before: RunSamples; after: RunSamples },
): JudgedFields {
  if (!old) return NOT_COMPARED;
  const change = changeOf(old, row, samples.before, samples.after);
  // A field the model leaves out (itself a change, a history point) is unknown, never real.
  return judgedFields(change ?? judgeChange({ value: old.value }, { value: row.value }, row.unit, false));
}
