import type { StorageChannelConfig } from '../../../config/storage-channels.js';
import { folderStore } from './folder-store.js';
import { type ObjectStore, s3Where, sftpWhere } from './object-store.js';

/** A fresh store for one attempt of a storage channel (SFTP connects on first use and is closed after). */
export function createObjectStore(channel: StorageChannelConfig): ObjectStore {
  switch (channel.type) {
    case 's3':
      return loadedOnUse(
        s3Where(channel),
        async () => (await import('./s3-store.js')).s3Store(channel),
        true,
      );
    case 'sftp':
      return loadedOnUse(sftpWhere(channel), async () =>
        (await import('./sftp-store.js')).sftpStore(channel),
      );
    case 'folder':
      return folderStore(channel.path);
  }
}

/**
 * A store whose client is loaded at its first call. The AWS SDK and ssh2 are a few hundred modules,
 * and every `deliver` and daemon loaded both, for an email as for a storage channel.
 */
function loadedOnUse(where: string, load: () => Promise<ObjectStore>, signs = false): ObjectStore {
  let loaded: Promise<ObjectStore> | undefined;
  const store = () => {
    loaded ??= load();
    return loaded;
  };
  return {
    where,
    stat: async (name) => (await store()).stat(name),
    put: async (name, file, signal) => (await store()).put(name, file, signal),
    remove: async (name) => (await store()).remove(name),
    ...(signs
      ? { presign: async (name, seconds, signedAt) => (await store()).presign!(name, seconds, signedAt) }
      : {}),
    // Never loaded, never connected: nothing to close.
    close: async () => (loaded ? (await loaded.catch(() => undefined))?.close() : undefined),
  };
}
