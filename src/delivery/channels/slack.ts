import type { KnownBlock, WebClient } from '@slack/web-api';
import type { EmailContent } from '../content.js';
import { alertTitle } from './alert-text.js';
import { type ChannelFile, channelFiles, title } from './files.js';
import { mrkdwnEscape, slackAlertBlocks, slackBlocks, slackNoticeBlocks } from './slack-blocks.js';
import {
  deliveryMetadata,
  findPosted,
  isShared,
  readCheckpoint,
  type SlackCheckpoint,
  threadHasFiles,
  uploadFile,
} from './slack-checkpoint.js';
import { slackClients } from './slack-client.js';
import { slackFailure } from './slack-failure.js';
import type { ChannelDelivery, ChannelNotice, ChannelResult, ChannelSender } from './types.js';

export interface SlackChannelConfig {
  name: string;
  token: string;
  channel: string;
  api_url: string;
  /** How long one Web API call's answer is waited for (s, default 30) before it counts as unknown. */
  timeout_seconds?: number;
}

/**
 * Slack through the official client: `chat.postMessage` with the headline KPIs as Block Kit, then the
 * files with the current upload flow (`files.uploadV2`: files.getUploadURLExternal, the upload to
 * the URL it returns, files.completeUploadExternal) into the thread of that message.
 *
 * The client's own retries are off: the outbox owns retries (one policy, one lease, attempts counted).
 * Every step that reaches Slack is done once (slack-checkpoint.ts):
 * - each message carries the delivery id as message metadata; an attempt after one whose outcome is
 *   unknown (a crash, a lost answer, an answer slower than `timeout_seconds`) first looks for it with
 *   conversations.history (`include_all_metadata`) and resumes from it instead of posting again;
 * - the message's `ts` is checkpointed on the queue row as soon as it is known, so a retry after a
 *   failed upload uploads into that thread;
 * - the files' ids are checkpointed after their upload and before files.completeUploadExternal, and
 *   a retry that finds them checks (files.info) whether the completion went through before completing.
 */
export function createSlackSender(config: SlackChannelConfig): ChannelSender {
  const timeoutMs = (config.timeout_seconds ?? 30) * 1000;
  const slack: SlackLink = {
    connect: slackClients({ ...config, timeoutMs }),
    channel: config.channel,
    timeoutMs,
  };
  return {
    type: 'slack',
    send: (delivery, content, signal) => sendReport(slack, delivery, content, signal),
    notice: (notice, signal) =>
      postAlone(slack, notice, signal, () => ({
        text: mrkdwnEscape(notice.title),
        blocks: slackNoticeBlocks(notice),
      })),
    // One message and no files: the metadata lookup is all a retry needs.
    alert: (delivery, alert, signal) =>
      postAlone(slack, delivery, signal, () => ({
        text: mrkdwnEscape(alertTitle(alert)),
        blocks: slackAlertBlocks(alert),
      })),
    async preview(delivery, content) {
      const files = await channelFiles(delivery.report, content);
      return {
        'chat.postMessage': {
          channel: config.channel,
          text: title(content),
          blocks: slackBlocks(delivery, content),
        },
        'files.uploadV2': {
          channel_id: config.channel,
          thread_ts: '(the ts chat.postMessage returns)',
          files: files.map((f) => ({ filename: f.name, length: f.size })),
        },
      };
    },
  };
}

/** The channel a sender posts to, and how it gets a client for one attempt. */
interface SlackLink {
  connect: (signal?: AbortSignal) => Promise<WebClient>;
  channel: string;
  timeoutMs: number;
}

type SlackMessage = { text: string; blocks: KnownBlock[] };

/** A report: its message (posted once), then its files into the message's thread (shared once). */
async function sendReport(
  slack: SlackLink,
  delivery: ChannelDelivery,
  content: EmailContent,
  signal: AbortSignal | undefined,
): Promise<ChannelResult> {
  const progress = checkpoints(delivery);
  try {
    const client = await slack.connect(signal);
    const files = await channelFiles(delivery.report, content);
    if (!progress.done.ts) {
      const posted = await postReport(client, slack.channel, delivery, content, files);
      if (!posted) return { state: 'deferred', reply: 'chat.postMessage answered without a message ts' };
      await progress.save(posted);
    }
    const ts = progress.done.ts!;
    if (files.length > 0 && !progress.done.completed) {
      await shareFiles({ ...slack, client, signal }, ts, files, progress);
    }
    return {
      state: 'accepted',
      reply: `posted ${ts} in ${slack.channel}${files.length ? `; uploaded ${files.map((f) => f.name).join(', ')}` : ''}`,
    };
  } catch (error) {
    return slackFailure(error, delivery.at, progress.done.ts);
  }
}

/** A notice or an alert: one message, no files. `message` is built once a client is at hand. */
async function postAlone(
  slack: SlackLink,
  target: ChannelDelivery | ChannelNotice,
  signal: AbortSignal | undefined,
  message: () => SlackMessage,
): Promise<ChannelResult> {
  try {
    const client = await slack.connect(signal);
    const { ts } = await postOnce(client, slack.channel, target, message());
    return { state: 'accepted', reply: `posted ${ts ?? '(no ts)'} in ${slack.channel}` };
  } catch (error) {
    return slackFailure(error, target.at, undefined);
  }
}

/** What this delivery already holds in Slack, saved on its queue row at every step. */
interface Progress {
  done: SlackCheckpoint;
  save(next: SlackCheckpoint): Promise<void>;
}

function checkpoints(delivery: ChannelDelivery): Progress {
  const progress: Progress = {
    done: readCheckpoint(delivery.resume),
    async save(next) {
      progress.done = next;
      await delivery.checkpoint?.(JSON.stringify(next));
    },
  };
  return progress;
}

/** The report's message, posted once: its checkpoint, or undefined when Slack gave no `ts`. */
async function postReport(
  client: WebClient,
  channel: string,
  delivery: ChannelDelivery,
  content: EmailContent,
  files: readonly ChannelFile[],
): Promise<SlackCheckpoint | undefined> {
  const posted = await postOnce(client, channel, delivery, {
    text: mrkdwnEscape(title(content)),
    blocks: slackBlocks(delivery, content),
  });
  if (!posted.ts) return undefined;
  // Found, not posted: the attempt that posted it (since taken over) may have finished the upload.
  const finished =
    posted.found &&
    files.length > 0 &&
    (await threadHasFiles(
      client,
      channel,
      posted.ts,
      files.map((f) => f.name),
    ));
  return { ts: posted.ts, ...(finished ? { completed: true } : {}) };
}

/** Uploads the files (unless an earlier attempt did) and completes them into the thread of `ts`, once. */
async function shareFiles(
  attempt: SlackLink & { client: WebClient; signal: AbortSignal | undefined },
  ts: string,
  files: readonly ChannelFile[],
  progress: Progress,
): Promise<void> {
  const { client, channel } = attempt;
  // Uploaded by an earlier attempt and completed there, its answer lost: do not complete again.
  const already = progress.done.files?.length
    ? (await Promise.all(progress.done.files.map((f) => isShared(client, f.id, channel)))).every(Boolean)
    : false;
  if (!already) {
    if (!progress.done.files?.length) {
      const uploaded: { id: string; title: string }[] = [];
      for (const file of files) {
        uploaded.push({
          id: await uploadFile(client, file, attempt.timeoutMs, attempt.signal),
          title: file.name,
        });
      }
      await progress.save({ ...progress.done, files: uploaded });
    }
    await client.files.completeUploadExternal({
      files: progress.done.files as [{ id: string; title: string }],
      channel_id: channel,
      thread_ts: ts,
    });
  }
  await progress.save({ ...progress.done, completed: true });
}

/**
 * Posts one message carrying the delivery id as metadata, unless an earlier attempt whose outcome is
 * unknown already posted it (found by that metadata): the `ts` either way.
 */
async function postOnce(
  client: WebClient,
  channel: string,
  delivery: Pick<ChannelDelivery, 'id' | 'lookFirst' | 'since' | 'at' | 'confirm'>,
  message: SlackMessage,
): Promise<{ ts: string | undefined; found: boolean }> {
  if (delivery.lookFirst) {
    const found = await findPosted(client, channel, delivery.id, delivery.since ?? delivery.at - 86_400_000);
    if (found) return { ts: found, found: true };
  }
  // Still this worker's row, its lease renewed: a worker paused after marking the row sending (or
  // after looking) must not post beside the one that took the row over, looked, found none and posted.
  await delivery.confirm?.();
  const posted = await client.chat.postMessage({
    channel,
    ...message,
    metadata: deliveryMetadata(delivery.id),
    unfurl_links: false,
    unfurl_media: false,
  });
  return { ts: posted.ts, found: false };
}
