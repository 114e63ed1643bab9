import type { Store } from '../store/sql.js';
import { getDelivery } from './reads.js';
import type { Delivery } from './row.js';

/** How often the row is read while another process holds it: cheap, and well under a human's patience. */
const POLL_MS = 250;

/**
 * Waits (at most `waitMs`) for the process holding delivery `id` to finish its attempt, by reading the
 * row: `reportd deliver` run twice at once must say what happened to the message the first is sending,
 * not merely that it did not send it itself. Returns the row once it is no longer being rendered or
 * sent, or undefined when the wait ran out (or `signal` aborted) with the row still held.
 */
export async function awaitOtherAttempt(
  store: Store,
  id: number,
  waitMs: number,
  signal?: AbortSignal,
): Promise<Delivery | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const row = await getDelivery(store, id);
    if (row && row.state !== 'rendering' && row.state !== 'sending') return row;
    if (Date.now() >= deadline || signal?.aborted) return undefined;
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))),
    );
  }
}
