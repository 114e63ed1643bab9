import type { WebClient } from '@slack/web-api';

/**
 * What Slack already holds of one delivery, so no step that reached Slack is repeated: the posted
 * message (found again through its metadata when the answer was lost) and the uploaded files
 * (completed into the thread once).
 *
 * The checkpoint is stored on the queue row under the claim's fencing token (a stale worker's
 * checkpoint changes nothing). Rows written before this format hold the bare `ts`.
 */
export interface SlackCheckpoint {
  /** The `ts` of the message posted for this delivery. */
  ts?: string;
  /** Files uploaded (files.getUploadURLExternal + the upload) and waiting to be completed. */
  files?: { id: string; title: string }[];
  /** files.completeUploadExternal answered ok: the files are in the thread. */
  completed?: boolean;
}

export function readCheckpoint(state: string | null | undefined): SlackCheckpoint {
  if (!state) return {};
  if (!state.startsWith('{')) return { ts: state };
  try {
    return JSON.parse(state) as SlackCheckpoint;
  } catch {
    return {};
  }
}

/** The metadata event every reportd message carries: how a later attempt recognises it. */
export const METADATA_EVENT = 'reportd_delivery';

/** `chat.postMessage`'s `metadata` for the delivery id (the same id as the email's Message-ID stem). */
export function deliveryMetadata(id: string): { event_type: string; event_payload: { delivery_id: string } } {
  return { event_type: METADATA_EVENT, event_payload: { delivery_id: id } };
}

/**
 * The `ts` of a message this delivery already posted, looked up in the channel's history since
 * `since` (epoch ms, the row's creation) by its metadata; undefined when none is there. Needs the
 * bot's `channels:history` (or `groups:history`) scope; a refusal is the caller's failure to report.
 */
export async function findPosted(
  client: WebClient,
  channel: string,
  id: string,
  since: number,
): Promise<string | undefined> {
  let cursor: string | undefined;
  // A day's busy channel fits in a few pages; the row is at most days old.
  for (let page = 0; page < 20; page++) {
    const answer = await client.conversations.history({
      channel,
      // A minute of slack for clocks: the message cannot be older than its row.
      oldest: String(Math.floor(since / 1000) - 60),
      include_all_metadata: true,
      limit: 200,
      ...(cursor ? { cursor } : {}),
    });
    for (const message of answer.messages ?? []) {
      const metadata = (
        message as { metadata?: { event_type?: string; event_payload?: { delivery_id?: string } } }
      ).metadata;
      if (metadata?.event_type === METADATA_EVENT && metadata.event_payload?.delivery_id === id)
        return message.ts;
    }
    cursor = answer.response_metadata?.next_cursor || undefined;
    if (!answer.has_more || !cursor) return undefined;
  }
  return undefined;
}

/**
 * Whether the thread of `ts` already holds every one of `names` (an earlier attempt, since taken
 * over, completed its upload there): the files are then not uploaded a second time.
 */
export async function threadHasFiles(
  client: WebClient,
  channel: string,
  ts: string,
  names: readonly string[],
): Promise<boolean> {
  const answer = await client.conversations.replies({ channel, ts, limit: 200 });
  const present = new Set(
    (answer.messages ?? []).flatMap((m) => (m.files ?? []).map((f) => f.name ?? f.title ?? '')),
  );
  return names.length > 0 && names.every((name) => present.has(name));
}

/**
 * Whether `fileId` is already shared into `channel` (a completeUploadExternal whose answer was lost
 * did go through): then completing it again would post the file a second time.
 */
export async function isShared(client: WebClient, fileId: string, channel: string): Promise<boolean> {
  const answer = await client.files.info({ file: fileId });
  const file = answer.file as
    | { channels?: string[]; groups?: string[]; shares?: Record<string, Record<string, unknown>> }
    | undefined;
  if (!file) return false;
  if (file.channels?.includes(channel) || file.groups?.includes(channel)) return true;
  return Object.values(file.shares ?? {}).some((byChannel) => channel in byChannel);
}

/** The upload's first two steps for one file: the URL, then the bytes to it. Returns the file id. */
export async function uploadFile(
  client: WebClient,
  file: { name: string; bytes: Buffer },
  timeoutMs: number,
  /** A lost lease: an upload not yet sent is not sent. */
  signal?: AbortSignal,
): Promise<string> {
  const target = await client.files.getUploadURLExternal({ filename: file.name, length: file.bytes.length });
  if (!target.upload_url || !target.file_id)
    throw new Error('files.getUploadURLExternal answered without a URL');
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file.bytes)]), file.name);
  const answer = await fetch(target.upload_url, {
    method: 'POST',
    body: form,
    signal: signal
      ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
      : AbortSignal.timeout(timeoutMs),
  });
  if (!answer.ok) {
    const error = new Error(`upload of ${file.name}: HTTP ${answer.status}`) as Error & {
      code: string;
      statusCode: number;
      headers: Record<string, string>;
    };
    error.code = 'slack_webapi_http_error';
    error.statusCode = answer.status;
    error.headers = Object.fromEntries(answer.headers);
    throw error;
  }
  return target.file_id;
}
