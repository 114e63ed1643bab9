import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StorageChannelConfig } from '../../../config/storage-channels.js';
import { scrub } from '../../../secrets.js';
import { createObjectStore } from './index.js';
import { type ObjectStore, StorageFault } from './object-store.js';

/** What `reportd check --destinations` prints for one storage channel. */
export interface ProbeResult {
  channel: string;
  ok: boolean;
  /** One line: "channel archive (s3 bucket reports): ok …" or the fault naming channel and bucket/host. */
  line: string;
}

/**
 * Writes a small probe object to the channel the way a delivery writes a file (whole, with its hash),
 * reads its hash back and removes it: the credentials, the bucket or folder, the host key and the
 * right to write and delete are all exercised. The name is random, so two checks never meet.
 */
export async function probeStorage(
  channel: StorageChannelConfig,
  open: (channel: StorageChannelConfig) => ObjectStore = createObjectStore,
): Promise<ProbeResult> {
  const dir = await mkdtemp(join(tmpdir(), 'reportd-probe-'));
  const store = open(channel);
  const name = `reportd-check-${randomBytes(6).toString('hex')}.txt`;
  try {
    const bytes = Buffer.from(`reportd check --destinations ${new Date().toISOString()}\n`);
    const path = join(dir, 'probe.txt');
    await writeFile(path, bytes);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    await store.put(name, { path, size: bytes.length, sha256 });
    const there = await store.stat(name);
    await store.remove(name);
    if (there?.sha256 !== sha256 || there.size !== bytes.length)
      return fail(channel, `${store.where}: the probe read back differs from what was written`);
    return {
      channel: channel.name,
      ok: true,
      line: `channel ${channel.name} (${store.where}): ok (probe ${name} written, read back and removed)`,
    };
  } catch (error) {
    const fault =
      error instanceof StorageFault
        ? error
        : new StorageFault('transient', `${store.where}: ${(error as Error).message}`);
    return fail(channel, fault.message);
  } finally {
    await store.close().catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}

function fail(channel: StorageChannelConfig, message: string): ProbeResult {
  // A store's message never holds a credential; scrub is the second lock on that door.
  const first = message.split('\n')[0] ?? '';
  return { channel: channel.name, ok: false, line: scrub(`channel ${channel.name}: ${first}`) };
}
