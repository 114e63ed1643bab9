import type { Clock } from '../clock.js';
import { GONE_AFTER_BEATS, HEARTBEAT_MS, instanceLive, listInstances } from '../store/instances.js';
import type { Store } from '../store/sql.js';
import type { AccountShare } from '../sync/share-accounts.js';

/**
 * This daemon's share of the accounts (sync/share-accounts.ts): ceil(accounts / live instances with
 * the sync role), itself included, read from `instances` on the database's clock. A daemon that died
 * stops counting once its heartbeat is `GONE_AFTER_BEATS` old; a stopped one at once.
 */
export function accountShare(store: Store, clock: Clock): AccountShare {
  return {
    async quota(accounts) {
      const now = clock.now();
      const rows = await listInstances(store, now - GONE_AFTER_BEATS * HEARTBEAT_MS);
      const syncing = rows.filter(
        (row) => instanceLive(row, now) && row.roles.split(',').includes('sync'),
      ).length;
      return Math.max(1, Math.ceil(accounts / Math.max(1, syncing)));
    },
  };
}
