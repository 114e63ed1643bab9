/**
 * Every lease time the store compares or writes, in one place: when a lease ends and whether it has
 * lapsed. Today they come from the process's clock (the injected `now`, epoch ms), bound as
 * parameters; moving leases to the database's clock (PostgreSQL `now()`) changes these functions and
 * nothing in the repositories that use them.
 */

/** A SQL expression and its parameters, spliced into a statement at the place it stands. */
export interface SqlTime {
  sql: string;
  params: unknown[];
}

/** The end of a lease taken or renewed at `now` for `ms`. */
export function leaseEnd(now: number, ms: number): SqlTime {
  return { sql: '?', params: [now + ms] };
}

/** `column` (a lease end) has passed at `now`: the holder may be replaced. */
export function lapsed(column: string, now: number): SqlTime {
  return { sql: `${column} < ?`, params: [now] };
}

/** `column` (a lease end) has not passed at `now`: the holder still holds it. */
export function current(column: string, now: number): SqlTime {
  return { sql: `${column} >= ?`, params: [now] };
}

/** `column` (a due time) has come at `now`. */
export function due(column: string, now: number): SqlTime {
  return { sql: `${column} <= ?`, params: [now] };
}
