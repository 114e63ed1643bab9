import type { RecipientRow } from './recipient-fields.js';

/**
 * How a recipient table's row is named outside the config: its outbox destination
 * (`recipient:<row id>`, part of the delivery's identity, so each reader is sent each run exactly
 * once whatever the table's order) and the words operators read (`deliver`, `history`, the status
 * page, a failure notice). Pure functions of the loaded rows, so every floor can name a reader.
 */

const PREFIX = 'recipient:';

/** The outbox destination of a row's deliveries. */
export function recipientDestination(row: Pick<RecipientRow, 'id'>): string {
  return `${PREFIX}${row.id}`;
}

export function isRecipientDestination(destination: string): boolean {
  return destination.startsWith(PREFIX);
}

/** What a report with a table needs to find a row again. */
interface WithRecipients {
  name: string;
  recipients?: readonly RecipientRow[];
}

/** The row a destination names in `report`'s table, or undefined (no table, or the row left it). */
export function recipientOf(
  report: WithRecipients | undefined,
  destination: string,
): RecipientRow | undefined {
  if (!report?.recipients || !isRecipientDestination(destination)) return undefined;
  return rowsById(report.recipients).get(destination.slice(PREFIX.length));
}

/** A loaded table is frozen: indexed once, so a 10,000-row table is not scanned once per row. */
const indexes = new WeakMap<readonly RecipientRow[], ReadonlyMap<string, RecipientRow>>();
function rowsById(rows: readonly RecipientRow[]): ReadonlyMap<string, RecipientRow> {
  let index = indexes.get(rows);
  if (!index) {
    index = new Map(rows.map((row) => [row.id, row]));
    indexes.set(rows, index);
  }
  return index;
}

/** The slice as text for people: `acme: 101 102`, `acme: all`. */
export function sliceText(row: Pick<RecipientRow, 'account' | 'query_sets'>): string {
  return `${row.account}: ${row.query_sets === 'all' ? 'all' : row.query_sets.join(' ')}`;
}

/** The reader as text for people: their address or `#channel`, and their name. */
export function readerText(row: Pick<RecipientRow, 'email' | 'channel' | 'name'>): string {
  const who = row.email ?? `channel ${row.channel}`;
  return row.name === undefined ? who : `${row.name} <${who}>`;
}

/**
 * How a reader's row is named to operators (`deliver`, `history`, the status page, a failure notice):
 * `reader Ann <ann@client.example> (clients.csv line 4)`; undefined for any other row, or a reader who
 * has left the table (their rows keep the bare `recipient:<id>`).
 */
export function readerLabel(report: WithRecipients | undefined, destination: string): string | undefined {
  const row = recipientOf(report, destination);
  return row ? `reader ${readerText(row)} (${row.at})` : undefined;
}

/** The reader of an outbox row, when it is a report row of a recipient table: for `history` and the status page. */
export function readerOfRow(
  row: { kind: string; report: string; destination: string },
  reports: readonly (WithRecipients & { name: string })[],
): string | undefined {
  if (row.kind !== 'report') return undefined;
  return readerLabel(
    reports.find((r) => r.name === row.report),
    row.destination,
  );
}

/**
 * The outbox destinations of every table row whose reader is `reader` (their address, any case, or
 * their channel's name), over all reports: what `history --reader` looks for besides the address.
 */
export function destinationsOfReader(reports: readonly WithRecipients[], reader: string): string[] {
  const address = reader.toLowerCase();
  return reports.flatMap((report) =>
    (report.recipients ?? [])
      .filter((row) => row.email?.toLowerCase() === address || row.channel === reader)
      .map(recipientDestination),
  );
}
