/**
 * The claim fields of a queue row (deliveries.ts), as reports, alerts and failure notices (rows of the
 * same table since migration 21, read as `Notice` by incidents.ts) see them: claimed with a lease,
 * retried with backoff and sent once under a fixed Message-ID.
 */

/** The claim, retry and send fields of a delivery or a notice, as their repositories return them. */
export interface ClaimedRowFields {
  attempts: number;
  lastError: string | null;
  messageId: string;
  claimedBy: string | null;
  /** Epoch ms. */
  leaseUntil: number | null;
  /** Epoch ms. */
  nextAttemptAt: number;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms. */
  sentAt: number | null;
}

/**
 * `col IN (…)` / `(a, b, c) IN (VALUES …)` for the rows a worker may claim, written once for the
 * outbox's scope and the notices' destinations: plain SQL both engines read. No list means every
 * row; an empty list means none (a config with nothing to send claims nothing).
 */
export function membership(
  columns: readonly string[],
  rows: readonly (readonly string[])[] | undefined,
  options: { negate?: boolean } = {},
): { sql: string; params: string[] } {
  const negate = options.negate === true;
  if (rows === undefined) return { sql: negate ? '1 = 0' : '1 = 1', params: [] };
  if (rows.length === 0) return { sql: negate ? '1 = 1' : '1 = 0', params: [] };
  const not = negate ? 'NOT IN' : 'IN';
  const params = rows.flatMap((row) => [...row]);
  if (columns.length === 1) {
    return { sql: `${columns[0]} ${not} (${rows.map(() => '?').join(', ')})`, params };
  }
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  return { sql: `(${columns.join(', ')}) ${not} (VALUES ${rows.map(() => tuple).join(', ')})`, params };
}
