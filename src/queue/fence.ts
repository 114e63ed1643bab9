import type { Logger } from '../log.js';

/**
 * A claimed row and the token its claim wrote: what every write of the claiming worker names
 * (`WHERE id = ? AND token = ?`). The fencing-token pattern: a worker that lost its claim (paused
 * past its lease, then resumed) and writes late matches no row, so its write changes nothing; the
 * row stays with whoever claimed it after. The writes themselves are queue/leased-rows.ts's.
 */
export interface Fence {
  id: number;
  token: string;
}

/**
 * Logs a write the fence dropped: never an error and never a reason to reset the row. `what` names
 * the write (`mark sending`, `record the answer`).
 */
export function staleWrite(log: Logger, what: string): void {
  log.warn(
    { write: what },
    `stale worker: could not ${what} (the row was claimed by another worker since); nothing changed`,
  );
}
