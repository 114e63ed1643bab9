import { ReportdError } from './reportd-error.js';

/**
 * Thrown by a storage channel's store (delivery/destinations/storage/: S3, SFTP, folder) when a write,
 * a look-up or a removal fails. `kind` is the outbox's reading of it: `transient` is retried with
 * backoff (5xx, SlowDown, a network fault, a full disk), `permanent` fails the delivery and raises a
 * failure notice (403, a missing bucket or folder, a changed host key). The message is one line that
 * names the bucket, host or folder and never holds a credential.
 */
export class StorageFault extends ReportdError {
  override name = 'StorageFault' as const;
  static override readonly code: string = 'ERR_STORAGE_FAULT';
  constructor(
    readonly kind: 'transient' | 'permanent',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
