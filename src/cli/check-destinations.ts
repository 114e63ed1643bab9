import type { Config } from '../config/index.js';
import { isStorageChannel } from '../config/storage-channels.js';
import { probeStorage } from '../delivery/destinations/storage/probe.js';

/**
 * `reportd check --destinations`: one line per storage channel, probed one after the other (a line
 * per channel as it is known, in config order); 0 when all are ok, 1 when any is not.
 */
export async function checkDestinations(config: Config): Promise<number> {
  const channels = config.channels.filter(isStorageChannel);
  if (channels.length === 0) {
    process.stdout.write('no storage channels (s3, sftp, folder) to check\n');
    return 0;
  }
  let failed = 0;
  for (const channel of channels) {
    const result = await probeStorage(channel);
    if (!result.ok) failed++;
    process.stdout.write(`${result.line}\n`);
  }
  return failed > 0 ? 1 : 0;
}
