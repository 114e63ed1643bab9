import { UsageError } from '../errors/index.js';
import { printable } from '../printable.js';
import { deliveredFiles } from '../store/delivered-files.js';
import type { Store } from '../store/sql.js';

const DAY_MS = 24 * 3600_000;

/** `history --files`' own flags. */
export interface FilesFlags {
  reader?: string;
  date?: string;
  json?: boolean;
}

/**
 * `reportd history --files [--reader R] [--date YYYY-MM-DD]`: exactly the files a reader was sent on
 * a day (UTC), each with its SHA-256, size, where it went and when; every reader and day without them.
 */
export async function showFiles(store: Store, flags: FilesFlags): Promise<void> {
  const from = flags.date === undefined ? 0 : dayStart(flags.date);
  const to = flags.date === undefined ? Number.MAX_SAFE_INTEGER : from + DAY_MS;
  const files = await deliveredFiles(store, {
    from,
    to,
    ...(flags.reader === undefined ? {} : { reader: flags.reader }),
  });
  const rows = files.map((f) => ({
    delivered_at: new Date(f.deliveredAt).toISOString(),
    reader: f.reader,
    report: f.report,
    destination: f.destination,
    location: f.location,
    file: f.file,
    object: f.object,
    size: f.size,
    sha256: f.sha256,
    delivery: f.deliveryId,
  }));
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ files: rows }, null, 2)}\n`);
    return;
  }
  const out = ['Delivered files (oldest first)'];
  if (rows.length === 0) out.push('  none');
  for (const r of rows)
    out.push(
      `  ${r.delivered_at}  ${printable(r.reader)}  ${printable(r.report)} → ${printable(r.destination)} (${printable(r.location)})  ${printable(r.object)}  ${r.size} bytes  sha256 ${r.sha256}`,
    );
  process.stdout.write(`${out.join('\n')}\n`);
}

function dayStart(date: string): number {
  const at = /^\d{4}-\d{2}-\d{2}$/.test(date) ? Date.parse(`${date}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(at)) throw new UsageError(`--date must be a day as YYYY-MM-DD (got "${printable(date)}")`);
  return at;
}
