import { StorageFault } from '../../../errors/index.js';

export { StorageFault };

/**
 * The small interface the three storage channels (S3, SFTP, folder) implement, so the destination
 * (storage-destination.ts) writes names, hashes and the manifest once for all of them. Every `put`
 * is whole or absent: a reader never sees part of a file under its final name.
 */

/** A file to write: read from `path`, its size and SHA-256 (hex) known beforehand. */
export interface LocalFile {
  path: string;
  size: number;
  sha256: string;
}

/** What is stored under a name: its size and the SHA-256 written with it (absent: unknown). */
export interface StoredObject {
  size: number;
  sha256?: string;
}

export interface ObjectStore {
  /** Where the files go, for errors and `history`: "s3 bucket reports", "sftp host drop.example.com". */
  readonly where: string;
  /** The object under `name`, or undefined when there is none. */
  stat(name: string): Promise<StoredObject | undefined>;
  /** Writes `file` under `name`, replacing what is there, whole or not at all; its SHA-256 travels with it. */
  put(name: string, file: LocalFile, signal?: AbortSignal): Promise<void>;
  /** Removes `name` and what travels with it (its `.sha256`); no error when absent. */
  remove(name: string): Promise<void>;
  /**
   * A link that reads `name` for `expiresInSeconds` after `signedAt` (default now); only stores that
   * sign links have one. The time is the caller's clock, so the email's "until" and the link agree.
   */
  presign?(name: string, expiresInSeconds: number, signedAt?: Date): Promise<string>;
  /** Ends the connection (SFTP); safe to call twice. */
  close(): Promise<void>;
}

/** How errors and `history` name an S3 store and an SFTP one. */
export const s3Where = (config: { bucket: string }) => `s3 bucket ${config.bucket}`;
export const sftpWhere = (config: { host: string }) => `sftp host ${config.host}`;

/** The `.sha256` written beside a file where the store keeps no metadata: `sha256sum -c` reads it. */
export function sidecarText(sha256: string, name: string): string {
  return `${sha256}  ${name.slice(name.lastIndexOf('/') + 1)}\n`;
}

/** The hash in a `.sha256` sidecar's text, or undefined when it holds none. */
export function sidecarHash(text: string): string | undefined {
  return /^([0-9a-f]{64})\b/.exec(text.trim())?.[1];
}

/** The temporary name a file is written under before its rename: fixed per name, so a retry reuses it. */
export function partialName(name: string): string {
  const slash = name.lastIndexOf('/');
  return `${name.slice(0, slash + 1)}.${name.slice(slash + 1)}.partial`;
}
