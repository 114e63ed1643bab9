import type { MetricChange } from '../../insight/changes.js';
import type { FamilySummary, RunInsight } from '../../insight/run-insight.js';
import type { InsightRow } from '../../insight/sample-sizes.js';

/**
 * The verdicts a report (or one set's section of a digest) prints: the run's own changes against the
 * run it compares with, computed once from the two stored snapshots (insight/run-insight.ts) — the
 * same figures, family and verdicts the export and the MCP tools quote. The report judges nothing
 * itself: it reads each figure's change here, so the PDF, the workbook, the email and the story can
 * never disagree with each other or with the export. Without an earlier stored run there is nothing
 * to read: the API's own deltas are shown "as reported by the service" and not judged.
 */

type Ref = Pick<InsightRow, 'endpoint' | 'field' | 'dimension' | 'dimension_id'>;

export class ReportFamily {
  constructor(
    /** The run's changes; undefined when no earlier run is stored to compare with. */
    readonly insight: RunInsight | undefined,
    readonly alpha: number,
  ) {}

  /** What the document says of its family: how many changes were judged, how many are likely. */
  settle(): FamilySummary {
    return this.insight?.summary() ?? { size: 0, headline: 0, likely: 0, alpha: this.alpha };
  }

  /** The change of a figure and its verdict; undefined when it was not compared. */
  verdictOf(ref: Ref): MetricChange | undefined {
    return this.insight?.of(ref);
  }
}
