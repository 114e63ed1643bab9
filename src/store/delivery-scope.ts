import { membership } from './claim-rows.js';
import type { DeliveryKind } from './delivery-row.js';

/** Which rows of the outbox a worker claims (deliveries.ts), by what its config can send. */

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
    scope.filter((t) => t.kind !== 'notice').map((t) => [t.kind, t.name, t.destination]),
  );
  const notices = membership(
    ['destination'],
    scope.filter((t) => t.kind === 'notice').map((t) => [t.destination]),
  );
  const sql = `(${named.sql} OR (kind = 'notice' AND ${notices.sql}))`;
  return { sql: negate ? `NOT ${sql}` : sql, params: [...named.params, ...notices.params] };
}
