import type { KnownBlock, Logger as SlackLogger, WebClient } from '@slack/web-api';
import type { EmailContent } from '../email.js';
import { alertContext, alertTitle, firingLines } from './alert-text.js';
import { channelFiles, clip, headlineSets, kpiLine, title } from './files.js';
import { retryAfter } from './http-answer.js';
import {
  deliveryMetadata,
  findPosted,
  isShared,
  readCheckpoint,
  type SlackCheckpoint,
  threadHasFiles,
  uploadFile,
} from './slack-checkpoint.js';
import type { ChannelAlert, ChannelDelivery, ChannelNotice, ChannelResult, ChannelSender } from './types.js';

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
  // The client (and axios under it, ~12 MB) is loaded on the first message: an idle daemon with a
  // Slack channel configured holds none of it.
  let loading: Promise<typeof import('@slack/web-api')> | undefined;
  const timeoutMs = (config.timeout_seconds ?? 30) * 1000;
  // A client per attempt, carrying its signal (a lost lease) into every request: one not yet sent is
  // then not sent. The client takes no signal per call, so an interceptor sets axios's own.
  const slack = async (signal?: AbortSignal): Promise<WebClient> => {
    loading ??= import('@slack/web-api');
    const { LogLevel, WebClient } = await loading;
    return new WebClient(config.token, {
      slackApiUrl: config.api_url.endsWith('/') ? config.api_url : `${config.api_url}/`,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: timeoutMs,
      logger: silent(LogLevel.ERROR),
      ...(signal
        ? {
            requestInterceptor: (request) => {
              request.signal = signal;
              return request;
            },
          }
        : {}),
    });
  };
  return {
    type: 'slack',
    async send(delivery, content, signal) {
      let done: SlackCheckpoint = readCheckpoint(delivery.resume);
      const save = async (next: SlackCheckpoint) => {
        done = next;
        await delivery.checkpoint?.(JSON.stringify(next));
      };
      try {
        const client = await slack(signal);
        const files = await channelFiles(delivery.report, content);
        if (!done.ts) {
          const posted = await postOnce(client, config.channel, delivery, {
            text: mrkdwnEscape(title(content)),
            blocks: slackBlocks(delivery, content),
          });
          if (!posted.ts)
            return { state: 'deferred', reply: 'chat.postMessage answered without a message ts' };
          // Found, not posted: the attempt that posted it (since taken over) may have finished the upload.
          const finished =
            posted.found &&
            files.length > 0 &&
            (await threadHasFiles(
              client,
              config.channel,
              posted.ts,
              files.map((f) => f.name),
            ));
          await save({ ts: posted.ts, ...(finished ? { completed: true } : {}) });
        }
        const ts = done.ts!;
        if (files.length > 0 && !done.completed) {
          // Uploaded by an earlier attempt and completed there, its answer lost: do not complete again.
          const already = done.files?.length
            ? (await Promise.all(done.files.map((f) => isShared(client, f.id, config.channel)))).every(
                Boolean,
              )
            : false;
          if (!already) {
            if (!done.files?.length) {
              const uploaded: { id: string; title: string }[] = [];
              for (const file of files) {
                uploaded.push({ id: await uploadFile(client, file, timeoutMs, signal), title: file.name });
              }
              await save({ ...done, files: uploaded });
            }
            await client.files.completeUploadExternal({
              files: done.files as [{ id: string; title: string }],
              channel_id: config.channel,
              thread_ts: ts,
            });
          }
          await save({ ...done, completed: true });
        }
        return {
          state: 'accepted',
          reply: `posted ${ts} in ${config.channel}${files.length ? `; uploaded ${files.map((f) => f.name).join(', ')}` : ''}`,
        };
      } catch (error) {
        return slackFailure(error, delivery.at, done.ts);
      }
    },
    async notice(notice, signal) {
      try {
        const client = await slack(signal);
        const { ts } = await postOnce(client, config.channel, notice, {
          text: mrkdwnEscape(notice.title),
          blocks: slackNoticeBlocks(notice),
        });
        return { state: 'accepted', reply: `posted ${ts ?? '(no ts)'} in ${config.channel}` };
      } catch (error) {
        return slackFailure(error, notice.at, undefined);
      }
    },
    async alert(delivery, alert, signal) {
      // One message and no files: the metadata lookup is all a retry needs.
      try {
        const client = await slack(signal);
        const { ts } = await postOnce(client, config.channel, delivery, {
          text: mrkdwnEscape(alertTitle(alert)),
          blocks: slackAlertBlocks(alert),
        });
        return { state: 'accepted', reply: `posted ${ts ?? '(no ts)'} in ${config.channel}` };
      } catch (error) {
        return slackFailure(error, delivery.at, undefined);
      }
    },
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

/**
 * Posts one message carrying the delivery id as metadata, unless an earlier attempt whose outcome is
 * unknown already posted it (found by that metadata): the `ts` either way.
 */
async function postOnce(
  client: WebClient,
  channel: string,
  delivery: Pick<ChannelDelivery, 'id' | 'lookFirst' | 'since' | 'at' | 'confirm'>,
  message: { text: string; blocks: KnownBlock[] },
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

/**
 * Block Kit: a header, the set and run, the KPIs as fields. Every API string goes into `plain_text`
 * objects, which Slack never reads as markup, so a brand name cannot mention @channel or link out.
 */
export function slackBlocks(_delivery: ChannelDelivery, content: EmailContent): KnownBlock[] {
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(title(content), 150) } },
  ];
  // A digest shows every set's headline; Slack takes at most 50 blocks per message.
  for (const set of headlineSets(content)) {
    blocks.push({ type: 'context', elements: [{ type: 'plain_text', text: clip(set.line, 2000) }] });
    if (set.note) {
      blocks.push({ type: 'section', text: { type: 'plain_text', text: clip(set.note, 3000) } });
    }
    // A section holds at most 10 fields.
    for (let i = 0; i < set.kpis.length; i += 10) {
      blocks.push({
        type: 'section',
        fields: set.kpis
          .slice(i, i + 10)
          .map((k) => ({ type: 'plain_text', text: clip(`${k.label}: ${kpiLine(k)}`, 2000) })),
      });
    }
  }
  if (content.summary) {
    blocks.push({ type: 'section', text: { type: 'plain_text', text: clip(content.summary, 3000) } });
  }
  return blocks.slice(0, 50);
}

/** A failure notice: a header and the text, both `plain_text` (the text quotes API replies). */
export function slackNoticeBlocks(notice: ChannelNotice): KnownBlock[] {
  return [
    { type: 'header', text: { type: 'plain_text', text: clip(notice.title, 150) } },
    { type: 'section', text: { type: 'plain_text', text: clip(notice.text, 3000) } },
  ];
}

/** An alert: a header, the set and runs, one section per firing; all `plain_text` (API strings). */
export function slackAlertBlocks(alert: ChannelAlert): KnownBlock[] {
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(alertTitle(alert), 150) } },
    { type: 'context', elements: [{ type: 'plain_text', text: clip(alertContext(alert), 2000) }] },
  ];
  // Slack takes at most 50 blocks; the email and webhook carry every firing.
  for (const firing of alert.firings.slice(0, 45)) {
    const text = [firing.headline, ...firingLines(firing)].join('\n');
    blocks.push({ type: 'section', text: { type: 'plain_text', text: clip(text, 3000) } });
  }
  return blocks;
}

/** The client's error codes, as the outbox's states. */
function slackFailure(error: unknown, now: number, ts: string | undefined): ChannelResult {
  const err = error as {
    code?: string;
    message?: string;
    statusCode?: number;
    retryAfter?: number;
    headers?: Record<string, string>;
    data?: { error?: string; response_metadata?: { retryAfter?: number } };
  };
  const where = ts ? `message ${ts} posted, file upload: ` : '';
  switch (err.code) {
    case 'slack_webapi_rate_limited_error':
      return {
        state: 'deferred',
        reply: `${where}rate limited`,
        retryAfterMs: (err.retryAfter ?? 0) * 1000,
      };
    case 'slack_webapi_http_error': {
      const status = err.statusCode ?? 0;
      const reply = `${where}HTTP ${status}`;
      if (status === 429 || status === 408 || status >= 500) {
        const after = retryAfter(err.headers?.['retry-after'] ?? null, now);
        return { state: 'deferred', reply, ...(after === undefined ? {} : { retryAfterMs: after }) };
      }
      return { state: 'refused', reply };
    }
    case 'slack_webapi_platform_error': {
      const code = err.data?.error ?? 'unknown_error';
      const reply = `${where}${code}`;
      if (!TRANSIENT_PLATFORM.has(code)) return { state: 'refused', reply };
      // An `ok: false` answer can carry Retry-After too (the client puts it in response_metadata):
      // a floor under the outbox's backoff, as for a 429.
      const seconds = err.data?.response_metadata?.retryAfter;
      const after = typeof seconds === 'number' ? retryAfter(String(seconds), now) : undefined;
      return { state: 'deferred', reply, ...(after === undefined ? {} : { retryAfterMs: after }) };
    }
    default:
      // Network faults, timeouts, the upload URL failing: worth another attempt.
      return { state: 'deferred', reply: `${where}${err.message ?? String(error)}` };
  }
}

const TRANSIENT_PLATFORM = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

/** `text` is mrkdwn (the notification fallback): `&`, `<` and `>` are Slack's control characters. */
function mrkdwnEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const noop = () => {};
/** The client logs to the console by default; reportd's own log says what matters. */
const silent = (level: ReturnType<SlackLogger['getLevel']>): SlackLogger => ({
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  setLevel: noop,
  getLevel: () => level,
  setName: noop,
});
