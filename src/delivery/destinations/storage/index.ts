import type { StorageChannelConfig } from '../../../config/storage-channels.js';
import { folderStore } from './folder-store.js';
import type { ObjectStore } from './object-store.js';
import { s3Store } from './s3-store.js';
import { sftpStore } from './sftp-store.js';

/** A fresh store for one attempt of a storage channel (SFTP connects on first use and is closed after). */
export function createObjectStore(channel: StorageChannelConfig): ObjectStore {
  switch (channel.type) {
    case 's3':
      return s3Store(channel);
    case 'sftp':
      return sftpStore(channel);
    case 'folder':
      return folderStore(channel.path);
  }
}
