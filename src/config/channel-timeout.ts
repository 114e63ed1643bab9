import { z } from 'zod';

/**
 * A channel's wait for its peer, in seconds (Slack's Web API, a POST, an S3 or SFTP server): one
 * bound for all of them, so no channel can be told to wait longer than a delivery's claim is worth.
 */
export function channelTimeout(defaultSeconds: number, description: string) {
  return z.number().positive().max(600).default(defaultSeconds).describe(description);
}
