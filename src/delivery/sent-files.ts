import type { Delivery } from '../outbox/row.js';

/**
 * What every destination reports of the files a reader got (the record, `delivered_files`), and what
 * an email carries when its files travel as links: shared by composers and destinations alike.
 */

/** One file as a reader got it: what `delivered_files` records. */
export interface SentFile {
  /** The attachment name. */
  file: string;
  /** Its object name at the destination (the attachment name for an email attachment). */
  object: string;
  size: number;
  sha256: string;
  /** The bucket, host or folder ("s3 bucket reports"), or "attachment". */
  location: string;
}

/**
 * Told about the files of each delivered attempt (the record of what was sent): who got them
 * (a storage channel's name, or the email addresses the server accepted) and through which channel.
 */
export type OnWritten = (
  row: Delivery,
  readers: readonly string[],
  destination: string,
  files: readonly SentFile[],
) => Promise<void>;

/** What an email shows for its links: each file's name, link and size, and until when they work. */
export interface LinksView {
  files: { name: string; url: string; size: string }[];
  until: string;
}

/** The upload an email's links need before the email goes out (email-links.ts builds it). */
export interface LinkUpload {
  /** The channel the links point into (its name), for errors. */
  channel: string;
  /**
   * Writes the files (then the manifest) to the store under the names the links sign. Called by the
   * email destination inside the row's fenced attempt, before the message goes out: the names are the
   * row's, so a retry rewrites nothing that is whole already and never writes a second copy.
   */
  upload(signal?: AbortSignal): Promise<void>;
}
