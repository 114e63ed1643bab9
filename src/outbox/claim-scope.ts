import { membership } from './claim-rows.js';
import { type DeliveryKind, EMAIL_DESTINATION } from './row.js';

/**
 * Which rows of the outbox a worker claims (deliveries.ts `claimNextDelivery`): the targets its config
 * can build and send (`claimScope`), and the same as a filter on the table (`scopeFilter`).
 */

/**
 * One kind of row a worker can build and send: a report's (or alert's) name and one of its
 * destinations, as its config has them. Several daemons with different configs share one outbox;
 * each claims only rows it can finish, so a row of another shard's report is left for that shard
 * instead of failed as "no longer in the config". A row no running config knows stays pending
 * (`reportd status` lists it; see `unclaimedDeliveries`).
 */
export interface ClaimTarget {
  kind: DeliveryKind;
  /** The report's name, or the alert's; ignored for `notice` (a worker takes every notice of its destinations). */
  name: string;
  /** `email` or a channel name. */
  destination: string;
}
export type ClaimScope = readonly ClaimTarget[];

/** A target's destination standing for every row of a report's recipient table (`recipient:<id>`). */
export const READER_ROWS = 'recipient:*';

/**
 * The scope as a filter on (kind, report, destination), notices on their destination alone; see
 * `membership`.
 */
export function scopeFilter(
  scope: ClaimScope | undefined,
  negate = false,
): { sql: string; params: string[] } {
  if (!scope) return membership(['kind'], undefined, { negate });
  const named = membership(
    ['kind', 'report', 'destination'],
    scope
      .filter((t) => t.kind !== 'notice' && t.destination !== READER_ROWS)
      .map((t) => [t.kind, t.name, t.destination]),
  );
  // A recipient table's rows by report, not one tuple per reader: a table may hold 10,000.
  const readers = membership(
    ['kind', 'report'],
    scope.filter((t) => t.destination === READER_ROWS).map((t) => [t.kind, t.name]),
  );
  named.sql = `(${named.sql} OR (${readers.sql} AND destination LIKE 'recipient:%'))`;
  named.params.push(...readers.params);
  const notices = membership(
    ['destination'],
    scope.filter((t) => t.kind === 'notice').map((t) => [t.destination]),
  );
  const sql = `(${named.sql} OR (kind = 'notice' AND ${notices.sql}))`;
  return { sql: negate ? `NOT ${sql}` : sql, params: [...named.params, ...notices.params] };
}

/** What a config entry (a report or an alert) says about where it goes. */
export interface Destined {
  name: string;
  email?: unknown;
  channels?: readonly string[];
  /** A recipient table: its rows are claimed together (`READER_ROWS`). */
  recipients?: readonly unknown[];
}

/**
 * The outbox rows a worker with this config can build and send: each report's and alert's email
 * (when it has an email section) and each of its channels that the config defines. The claim query
 * takes only these (`ClaimTarget`), so daemons with different report sets on one
 * store each deliver their own and never fail another's rows.
 */
export function claimScope(options: {
  reports: readonly Destined[];
  alerts?: readonly Destined[];
  /** The channels this process can post to, by name. */
  channels?: { has(name: string): boolean };
  /** The storage channels this process writes to, by name. */
  storage?: { has(name: string): boolean };
  /** The destinations whose failure notices it sends (see OutboxOptions.noticeDestinations). */
  noticeDestinations?: readonly string[];
}): ClaimScope {
  const targets: ClaimTarget[] = [];
  const add = (kind: ClaimTarget['kind'], entry: Destined) => {
    if (entry.email) targets.push({ kind, name: entry.name, destination: EMAIL_DESTINATION });
    for (const channel of entry.channels ?? []) {
      if (options.channels?.has(channel) || options.storage?.has(channel))
        targets.push({ kind, name: entry.name, destination: channel });
    }
  };
  for (const report of options.reports) {
    if (report.recipients) targets.push({ kind: 'report', name: report.name, destination: READER_ROWS });
    else add('report', report);
  }
  for (const alert of options.alerts ?? []) add('alert', alert);
  // Notices are claimed by destination alone: whichever report or sync they are about.
  for (const destination of options.noticeDestinations ?? [])
    targets.push({ kind: 'notice', name: '', destination });
  return targets;
}
