/**
 * Where request starts and ends are remembered across restarts (the store's request_log). Without it a
 * restarted process would believe the window empty and burst past what the server still counts.
 */
export interface RequestHistory {
  /**
   * Times (ms) from which the requests of `budgetKey` still counted after `since` count: their end
   * when `finish` recorded one, else their start (or later). Order does not matter. A time may be
   * later than `now` (a request of another process that started or ended while this read waited).
   */
  recent(budgetKey: string, since: number, now: number): Promise<number[]>;
  /** A request started; the value it resolves to is handed back to `finish`. */
  record(budgetKey: string, at: number): Promise<unknown>;
  /** The request `record` returned `row` for ended at `at`. Optional: without it, starts count. */
  finish?(row: unknown, at: number): Promise<void>;
  /**
   * Optional, for a history several processes write (one store): the times, counted as `recent`
   * counts them, of requests OTHER processes recorded since this history first answered `recent`
   * (older ones the budget already loaded), and again, from its end, of one that was in flight when
   * `recent` answered and has ended since. With `exclusive`, the budget reads them before each grant.
   */
  others?(budgetKey: string, since: number, now: number): Promise<number[]>;
  /** Runs `fn` so that no other process reads or records for `budgetKey` between its reads and its record. */
  exclusive?<T>(budgetKey: string, fn: () => Promise<T>): Promise<T>;
}
