import type { Store } from './sql.js';

/** One delivered file as `delivered_files` (migration 44) holds it. */
export interface DeliveredFile {
  deliveryId: number;
  report: string;
  /** Who got it: an email address, or the channel's name for a storage channel. */
  reader: string;
  /** The channel (`email`, `archive`, …). */
  destination: string;
  /** The bucket, host or folder ("s3 bucket reports"), or the mail server for an attachment. */
  location: string;
  file: string;
  /** The object name at the destination (the attachment name for email). */
  object: string;
  size: number;
  sha256: string;
  deliveredAt: number;
}

/** Records files once per (delivery, reader, object): a retried delivery adds nothing. */
export async function recordDeliveredFiles(store: Store, files: readonly DeliveredFile[]): Promise<void> {
  for (const f of files) {
    await store.run(
      `INSERT INTO delivered_files (delivery_id, report, reader, destination, location, file, object, size, sha256, delivered_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (delivery_id, reader, object) DO NOTHING`,
      [
        f.deliveryId,
        f.report,
        f.reader,
        f.destination,
        f.location,
        f.file,
        f.object,
        f.size,
        f.sha256,
        f.deliveredAt,
      ],
    );
  }
}

/** The files delivered from `from` (inclusive) to `to` (exclusive), for one reader or all, oldest first. */
export async function deliveredFiles(
  store: Store,
  range: { from: number; to: number; reader?: string },
): Promise<DeliveredFile[]> {
  const rows = await store.all<Record<string, string | number>>(
    `SELECT delivery_id, report, reader, destination, location, file, object, size, sha256, delivered_at
       FROM delivered_files
      WHERE delivered_at >= ? AND delivered_at < ? ${range.reader === undefined ? '' : 'AND reader = ?'}
      ORDER BY delivered_at, id`,
    [range.from, range.to, ...(range.reader === undefined ? [] : [range.reader])],
  );
  return rows.map((r) => ({
    deliveryId: Number(r.delivery_id),
    report: String(r.report),
    reader: String(r.reader),
    destination: String(r.destination),
    location: String(r.location),
    file: String(r.file),
    object: String(r.object),
    size: Number(r.size),
    sha256: String(r.sha256),
    deliveredAt: Number(r.delivered_at),
  }));
}

/** Drops the records older than `before` (`delivery.keep_records`); returns how many. */
export async function pruneDeliveredFiles(store: Store, before: number): Promise<number> {
  return (await store.run('DELETE FROM delivered_files WHERE delivered_at < ?', [before])).changes;
}
