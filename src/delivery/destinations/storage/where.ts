import type { S3ChannelConfig, SftpChannelConfig } from '../../../config/storage-channels.js';

/** How errors and `history` name an S3 channel's store; known before the SDK is loaded (index.ts). */
export function s3Where(config: S3ChannelConfig): string {
  return `s3 bucket ${config.bucket}`;
}

/** How errors and `history` name an SFTP channel's store; known before ssh2 is loaded (index.ts). */
export function sftpWhere(config: SftpChannelConfig): string {
  return `sftp host ${config.host}`;
}
