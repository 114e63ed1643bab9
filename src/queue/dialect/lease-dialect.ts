/**
 * Where the lease statements of queue/leased-rows.ts differ between the engines, one file per engine
 * (sqlite.ts, postgres.ts), the way Kysely keeps a dialect's quirks apart: everything else is one
 * SQL text that both read.
 */
export interface LeaseDialect {
  /**
   * Appended to the read of claim candidates. PostgreSQL lets several writers in at once: the rows
   * read are locked, and rows another claimant has locked are skipped, so the workers of several
   * daemons take different rows instead of queueing on one.
   */
  readonly lockCandidates: string;
  /**
   * An epoch-ms parameter where the engine would not know its type from the statement (a branch of
   * a CASE: PostgreSQL types two bare parameters there as text, then refuses to store it in a BIGINT).
   */
  readonly epochMs: string;
}
