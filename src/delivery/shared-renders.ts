import { createHash, randomBytes } from 'node:crypto';
import type { RecipientRow } from '../config/recipient-fields.js';
import { isRecipientDestination, recipientOf, sliceText } from '../config/recipient-names.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import { coveredBefore, coveredRuns, pairKey } from '../outbox/digest-rows.js';
import type { Delivery } from '../outbox/row.js';
import type { Store } from '../store/sql.js';
import type { EmailContent } from './content.js';
import { documentKey, type ReaderBase, readerReport } from './recipients.js';

/**
 * One render per distinct document of a recipient table: rows whose documents would be the same
 * (slice, locale, theme, formats, paper, the same runs with the same "already sent" marks) are given
 * the files and headline of the first one drawn. Each row is still its own outbox row, claimed, sent
 * and recorded alone; only the drawing is shared, within this process.
 */
export class SharedRenders {
  private readonly renders = new Map<string, Promise<EmailContent>>();
  /** Folders are this process's own: two daemons drawing one document never write one file. */
  private readonly tag = randomBytes(4).toString('hex');
  private drawn = 0;

  constructor(
    private readonly logger: Logger,
    /** Documents kept (their headlines; the files stay on disk): a slot's worth of slices. */
    private readonly keep = 256,
  ) {}

  /** The document `key`, drawn into a fresh folder by `draw` unless it was drawn already. */
  get(key: string, draw: (folder: string) => Promise<EmailContent>): Promise<EmailContent> {
    const known = this.renders.get(key);
    if (known) return known;
    const folder = `doc-${key}-${this.tag}-${++this.drawn}`;
    const render = draw(folder).then(
      (content) => {
        // Counted by tests and benchmarks: one line per document drawn, none per row sent.
        this.logger.info({ document: key, folder }, 'document rendered for recipients');
        return content;
      },
      (error: unknown) => {
        // A failed render is not shared: the next row (or this row's retry) draws it again.
        this.renders.delete(key);
        throw error;
      },
    );
    this.renders.set(key, render);
    for (const oldest of this.renders.keys()) {
      if (this.renders.size <= this.keep) break;
      this.renders.delete(oldest);
    }
    return render;
  }
}

/**
 * The reader of a row bound for `recipient:<id>`, with the report as they get it; undefined for any
 * other row. The slice is checked once more here, against what the row covers: a run outside it
 * (a row enqueued by a bug, or a table edited under a queued row) fails the row, never leaks.
 */
export function readerOf<R extends ReaderBase>(
  config: Pick<Config, 'themes'>,
  report: R & { recipients?: readonly RecipientRow[] },
  delivery: Delivery,
): { row: RecipientRow; report: R & { recipient: RecipientRow } } | undefined {
  if (!isRecipientDestination(delivery.destination)) return undefined;
  const row = recipientOf(report, delivery.destination);
  if (!row) throw new Error(`this reader is no longer in the recipients of report "${report.name}"`);
  const runs = coveredRuns(delivery) ?? [
    { account: delivery.account ?? '', querySetId: delivery.querySetId },
  ];
  for (const run of runs) {
    const inSlice =
      run.account === row.account && (row.query_sets === 'all' || row.query_sets.includes(run.querySetId));
    if (!inSlice)
      throw new Error(
        `query set ${run.querySetId} (${run.account}) is outside the slice of the reader at ${row.at} (${sliceText(row)})`,
      );
  }
  return { row, report: readerReport(report, row, config.themes) };
}

/** The key of the document a reader's row gets: what it covers, how it looks, what it marks as sent. */
export async function documentOf(
  store: Store,
  report: string,
  delivery: Delivery,
  row: RecipientRow,
  teams: boolean,
): Promise<string> {
  const runs = coveredRuns(delivery);
  const covers = delivery.covers ?? `${delivery.account}/${delivery.querySetId}/${delivery.runId}`;
  // A digest marks runs this destination was sent before: rows differ there, so documents do too.
  const before = runs ? await coveredBefore(store, report, delivery) : new Set<string>();
  const repeated = (runs ?? [])
    .map(pairKey)
    .filter((key) => before.has(key))
    .sort();
  const parts = [report, covers, documentKey(row), teams, repeated];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}
