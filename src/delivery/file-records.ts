import { type Clock, systemClock } from '../clock.js';
import { pruneDeliveredFiles, recordDeliveredFiles } from '../store/delivered-files.js';
import type { Store } from '../store/sql.js';
import type { OnWritten } from './sent-files.js';

const DAY_MS = 24 * 3600_000;

/**
 * Records each delivery's files (a storage channel's, the manifest included; an email's attachments
 * or links, once per accepted recipient) for `history --files`, and prunes
 * records older than `keep` (`delivery.keep_records`, "400d") as it goes, so the table stays bounded
 * without a job of its own.
 */
export function fileRecorder(store: Store, keep: string, clock: Clock = systemClock): OnWritten {
  const keepMs = Number.parseInt(keep, 10) * DAY_MS;
  return async (row, readers, destination, files) => {
    const now = clock.now();
    await recordDeliveredFiles(
      store,
      readers.flatMap((reader) =>
        files.map((f) => ({
          deliveryId: row.id,
          report: row.report,
          reader,
          destination,
          location: f.location,
          file: f.file,
          object: f.object,
          size: f.size,
          sha256: f.sha256,
          deliveredAt: now,
        })),
      ),
    );
    await pruneDeliveredFiles(store, now - keepMs);
  };
}
