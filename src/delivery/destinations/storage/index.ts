import type {
  S3ChannelConfig,
  SftpChannelConfig,
  StorageChannelConfig,
} from '../../../config/storage-channels.js';
import { folderStore } from './folder-store.js';
import type { ObjectStore } from './object-store.js';
import { s3Where, sftpWhere } from './where.js';

/**
 * A fresh store for one attempt of a storage channel (SFTP connects on first use and is closed after).
 * The AWS SDK and ssh2 take a quarter of a second of CPU to load: every process that builds an outbox
 * (`reportd sync` queueing, the daemon, `deliver`) reached this module, most never write to S3 or
 * SFTP, so those two are loaded on their first call instead.
 */
export function createObjectStore(channel: StorageChannelConfig): ObjectStore {
  switch (channel.type) {
    case 's3':
      return loadedOnUse(s3Where(channel), true, () => s3(channel));
    case 'sftp':
      return loadedOnUse(sftpWhere(channel), false, () => sftp(channel));
    case 'folder':
      return folderStore(channel.path);
  }
}

async function s3(channel: S3ChannelConfig): Promise<ObjectStore> {
  return (await import('./s3-store.js')).s3Store(channel);
}

async function sftp(channel: SftpChannelConfig): Promise<ObjectStore> {
  return (await import('./sftp-store.js')).sftpStore(channel);
}

/** An `ObjectStore` whose implementation is made on its first call; `close` makes none. */
function loadedOnUse(where: string, signs: boolean, make: () => Promise<ObjectStore>): ObjectStore {
  let made: Promise<ObjectStore> | undefined;
  const store = () => {
    made ??= make();
    return made;
  };
  return {
    where,
    stat: async (name) => (await store()).stat(name),
    put: async (name, file, signal) => (await store()).put(name, file, signal),
    remove: async (name) => (await store()).remove(name),
    ...(signs
      ? {
          presign: async (name: string, expiresInSeconds: number, signedAt?: Date) => {
            const loaded = await store();
            if (!loaded.presign) throw new Error(`${where}: signs no links`);
            return loaded.presign(name, expiresInSeconds, signedAt);
          },
        }
      : {}),
    close: async () => {
      if (made) await (await made).close();
    },
  };
}
