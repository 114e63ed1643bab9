import { z } from 'zod';
import { type Judged, judgeTogether, measureChange } from '../insight/changes.js';
import type { RunInsight } from '../insight/run-insight.js';
import type { InsightRow } from '../insight/sample-sizes.js';

/**
 * How the MCP tools say whether a change matters: the noise model's own judgement (src/insight, the
 * one the reports, alerts and exports read), shaped for an assistant. Every answer is a document:
 * the changes it judges in one run are judged together (Benjamini–Hochberg at q = 0.05, the headline
 * presence figures holding half of it, as in every document), so an answer that lists 30 movers does
 * not call one of them likely by chance alone. A row the model does not
 * judge (a field that is itself a change, a count, a share without a known n) is `unknown`.
 */

export const judgedOut = {
  change: z
    .number()
    .nullable()
    .describe(
      'after − before: percentage points for shares (percent, or fraction × 100), else in `unit`; null when there is no earlier value',
    ),
  significance: z
    .enum(['likely', 'unclear', 'unknown', 'invalid'])
    .nullable()
    .describe(
      'likely: a likely change (its adjusted q is at most 0.05 among the changes judged with it); unclear: no clear change; unknown: not a share of answers, or its n is not in the data, or see `note` (never likely); invalid: either value is outside what its unit allows (a share of 150 %), not judged; null when there is no earlier value',
    ),
  note: z
    .enum(['invalid-value', 'copies-disagree'])
    .nullable()
    .describe(
      'Why a share was not judged: invalid-value, or copies-disagree (the API sends the figure under two names and the copies differ)',
    ),
  interval: z
    .object({ low: z.number(), high: z.number() })
    .nullable()
    .describe(
      "Interval of the change (Newcombe's hybrid score), in the scale of `change`, at `interval_level`: it excludes 0 exactly when the change is likely",
    ),
  interval_level: z
    .number()
    .nullable()
    .describe(
      'Confidence level of `interval`, e.g. 0.99 (higher than 0.95 when many changes are judged together)',
    ),
  p: z
    .number()
    .nullable()
    .describe('p-value of the change on its own (the level at which its interval touches 0)'),
  q: z
    .number()
    .nullable()
    .describe('Adjusted p-value among the changes judged with it (Benjamini–Hochberg); likely when q ≤ 0.05'),
  family_size: z
    .number()
    .nullable()
    .describe(
      "How many changes were judged together with this one: every judged change of the run (the run's own document family, as its report and export judge it)",
    ),
  n_before: z.number().nullable().describe('Answers the earlier value was counted on'),
  n_after: z.number().nullable().describe('Answers the later value was counted on'),
  n_source: z.string().nullable().describe('Where n comes from, e.g. totalAll ÷ 5 engines'),
};

export type JudgedFields = {
  change: number | null;
  significance: Judged['significance'] | null;
  note: Judged['note'];
  interval: { low: number; high: number } | null;
  interval_level: number | null;
  p: number | null;
  q: number | null;
  family_size: number | null;
  n_before: number | null;
  n_after: number | null;
  n_source: string | null;
};

export const NOT_COMPARED: JudgedFields = {
  change: null,
  significance: null,
  note: null,
  interval: null,
  interval_level: null,
  p: null,
  q: null,
  family_size: null,
  n_before: null,
  n_after: null,
  n_source: null,
};

export function judgedFields(judged: Judged): JudgedFields {
  return {
    change: judged.change,
    significance: judged.significance,
    note: judged.note,
    interval: judged.low === null || judged.high === null ? null : { low: judged.low, high: judged.high },
    interval_level: judged.level,
    p: judged.p,
    q: judged.q,
    family_size: judged.familySize,
    n_before: judged.nBefore,
    n_after: judged.nAfter,
    n_source: judged.nSource,
  };
}

type Keyed = Pick<InsightRow, 'endpoint' | 'field' | 'dimension' | 'dimension_id'>;
export const rowKey = (row: Keyed) =>
  `${row.endpoint}\u0000${row.field}\u0000${row.dimension}\u0000${row.dimension_id ?? ''}`;

/**
 * A row of one run against the same row of an earlier run, with the verdict of the run's own document
 * (`insight`: every figure of the two runs judged as one family, insight/run-insight.ts), never a
 * family made of what one answer happens to ask for. A row without an earlier value is not compared;
 * a field the model leaves out (itself a change, a history point) is unknown, never likely.
 */
export function judgedInRun(insight: RunInsight, row: InsightRow, old: InsightRow | undefined): JudgedFields {
  if (!old) return NOT_COMPARED;
  const change = insight.of(row);
  if (change && rowKey(change) === rowKey(row)) return judgedFields(change);
  return judgedFields(
    judgeTogether([measureChange({ value: old.value }, { value: row.value }, row.unit, false)])[0]!,
  );
}
