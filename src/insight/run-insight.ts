import { DEFAULT_ALPHA, isHeadline, type MetricChange } from './changes.js';
import { compareRuns } from './row-changes.js';
import { figureOf, type InsightRow, type SetDetails } from './sample-sizes.js';

/**
 * A run's changes, computed once from the two stored snapshots (row-changes.ts `compareRuns`: every
 * level present in both, each figure once, the run's figures judged as one document) and read by
 * every surface — the PDF, the workbook, the email, Slack and Teams through the report model, the
 * export's `metric_changes`, the MCP tools and the studio. The API's own `delta` fields are not read
 * here: the spec does not say which figure `presence.by-engine`'s `delta` is the change of, and an
 * API that sends the gross change there would otherwise have the weighted figure judged on a change
 * the stored runs do not show (docs/analysing-data.md, "Changes come from the stored runs").
 */

type Ref = Pick<InsightRow, 'endpoint' | 'field' | 'dimension' | 'dimension_id'>;

const rowKey = (row: Ref) => [row.endpoint, row.field, row.dimension, row.dimension_id ?? ''].join('\u0000');

/** What a document says of the family its changes were judged in. */
export interface FamilySummary {
  /** Every change judged in the run's document. */
  size: number;
  /** Of them, the headline figures (judged among themselves). */
  headline: number;
  /** How many are likely changes. */
  likely: number;
  /** The document's α (its false discovery rate). */
  alpha: number;
}

export class RunInsight {
  private readonly byRow: Map<string, MetricChange>;
  private readonly byFigure = new Map<string, MetricChange>();

  constructor(
    readonly changes: readonly MetricChange[],
    readonly alpha = DEFAULT_ALPHA,
  ) {
    this.byRow = new Map(changes.map((change) => [rowKey(change), change]));
    for (const change of changes)
      if (!this.byFigure.has(figureOf(change))) this.byFigure.set(figureOf(change), change);
  }

  /** The change of a row (or of the figure it shows, under another name); undefined when not compared. */
  of(ref: Ref): MetricChange | undefined {
    return this.byRow.get(rowKey(ref)) ?? this.byFigure.get(figureOf(ref));
  }

  /** The family the run's changes were judged in: its size, headline members and likely ones. */
  summary(): FamilySummary {
    // Each figure once, a headline figure when any of its rows is one (its copies share its verdict).
    const members = new Map<string, { change: MetricChange; headline: boolean }>();
    for (const change of this.changes) {
      if (change.q === null) continue;
      const member = members.get(figureOf(change)) ?? { change, headline: false };
      member.headline ||= isHeadline(change);
      members.set(figureOf(change), member);
    }
    const all = [...members.values()];
    return {
      size: all.length,
      headline: all.filter((member) => member.headline).length,
      likely: all.filter((member) => member.change.significance === 'likely').length,
      alpha: this.alpha,
    };
  }
}

/** The insight of `after` against `before` (rows of two runs of one set). */
export function runInsight(
  before: readonly InsightRow[],
  after: readonly InsightRow[],
  details: SetDetails = {},
  alpha = DEFAULT_ALPHA,
): RunInsight {
  return new RunInsight(compareRuns(before, after, { before: details, after: details }, alpha), alpha);
}
