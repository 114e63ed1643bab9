import type { ReportConfig } from '../config/schema.js';
import { type JudgingConfig, judging } from '../report/judging.js';
import { buildReportModel } from '../report/model/index.js';
import { recordSkippedRun } from '../store/schedule-events.js';
import { findSnapshot, listSnapshots } from '../store/snapshots.js';
import type { Store } from '../store/sql.js';
import { VERSION } from '../version.js';

/**
 * `require_likely_change`: a report sent only when its run has at least one likely change — judged
 * as the report itself judges them (its family, its `compare_with`, its `false_discovery_rate`), not
 * on raw values as Looker's `require_change` does. A run left unsent is recorded in `history` as a
 * skip with the reason, once per reason, so the silence is explained and not mistaken for a fault.
 */

/** What the filter reads of a report's config: its name, the option, and how the report judges. */
export type LikelyChangeReport = Pick<ReportConfig, 'name'> &
  Partial<Pick<ReportConfig, 'require_likely_change'>> &
  JudgingConfig;

/** A run the delivery planner found (due.ts `LatestRun`): what this filter reads of it. */
interface RunRef {
  account: string;
  querySetId: number;
  runId: number;
  createdAt: string;
}

export interface LikelyChangeFilter<R extends RunRef> {
  /** The runs to send (all of them when the report does not ask, or when one of a digest's has a likely change). */
  runs: R[];
  /** One line per run left unsent, as `history` records it. */
  skipped: string[];
}

/** How many likely changes the report of `run` would show, and how many changes it judges. */
async function judgedRun(store: Store, report: LikelyChangeReport, run: RunRef) {
  const snapshot = await findSnapshot(store, {
    querySetId: run.querySetId,
    runId: run.runId,
    account: run.account,
  });
  if (!snapshot) return undefined;
  const history = await listSnapshots(store, { querySetId: run.querySetId, account: run.account });
  const model = buildReportModel(snapshot, history, {
    generatedAt: new Date(),
    version: VERSION,
    ...judging(report),
  });
  return { label: snapshot.run.display_name, judged: model.judged };
}

/**
 * The runs of `report` worth sending. Per set (`digest: false`), each run on its own; a digest is one
 * message, sent whole when any of its runs has a likely change. Skips are recorded at `now`.
 */
export async function withLikelyChange<R extends RunRef>(
  store: Store,
  report: LikelyChangeReport,
  runs: readonly R[],
  options: { digest: boolean; now: number },
): Promise<LikelyChangeFilter<R>> {
  if (!report.require_likely_change || runs.length === 0) return { runs: [...runs], skipped: [] };
  const verdicts: { run: R; judged: Awaited<ReturnType<typeof judgedRun>> }[] = [];
  for (const run of runs) verdicts.push({ run, judged: await judgedRun(store, report, run) });
  // A run whose snapshot cannot be read is left to the render, which says why it fails.
  const worth = (v: (typeof verdicts)[number]) => !v.judged || v.judged.judged.likely > 0;
  if (options.digest && verdicts.some(worth)) return { runs: [...runs], skipped: [] };
  const skipped = verdicts.filter((v) => !worth(v));
  const lines = skipped.map(({ run, judged }) => {
    const { size } = judged!.judged;
    return `run ${judged!.label} of query set ${run.querySetId} (${run.account}): no likely change among the ${size} changes its report judged (require_likely_change)`;
  });
  for (const [i, { run }] of skipped.entries())
    await recordSkippedRun(store, {
      job: `report:${report.name}`,
      runAt: Date.parse(run.createdAt),
      at: options.now,
      detail: lines[i]!,
    });
  return { runs: verdicts.filter(worth).map((v) => v.run), skipped: lines };
}
