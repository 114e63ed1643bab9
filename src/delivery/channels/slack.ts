import type { KnownBlock, Logger as SlackLogger, WebClient } from '@slack/web-api';
import type { EmailContent } from '../email.js';
import { alertContext, alertTitle, firingLines } from './alert-text.js';
import { channelFiles, clip, headlineSets, kpiLine, title } from './files.js';
import { retryAfter } from './http-answer.js';
import type { ChannelAlert, ChannelDelivery, ChannelNotice, ChannelResult, ChannelSender } from './types.js';

export interface SlackChannelConfig {
  name: string;
  token: string;
  channel: string;
  api_url: string;
}

/**
 * Slack through the official client: `chat.postMessage` with the headline KPIs as Block Kit, then the
 * files with the current upload flow (`files.uploadV2`: files.getUploadURLExternal, the upload to
 * the URL it returns, files.completeUploadExternal) into the thread of that message.
 *
 * The client's own retries are off: the outbox owns retries (one policy, one lease, attempts counted).
 * Two steps are two chances of a half-done delivery, so the message's `ts` is checkpointed on the
 * outbox row as soon as Slack returns it; a retry after a failed upload uploads into that thread
 * instead of posting the message a second time.
 */
export function createSlackSender(config: SlackChannelConfig): ChannelSender {
  // The client (and axios under it, ~12 MB) is loaded on the first message: an idle daemon with a
  // Slack channel configured holds none of it.
  let loading: Promise<WebClient> | undefined;
  const slack = () =>
    (loading ??= import('@slack/web-api').then(
      ({ LogLevel, WebClient }) =>
        new WebClient(config.token, {
          slackApiUrl: config.api_url.endsWith('/') ? config.api_url : `${config.api_url}/`,
          retryConfig: { retries: 0 },
          rejectRateLimitedCalls: true,
          timeout: 30_000,
          logger: silent(LogLevel.ERROR),
        }),
    ));
  return {
    type: 'slack',
    async send(delivery, content) {
      let ts = delivery.resume ?? undefined;
      try {
        const client = await slack();
        if (!ts) {
          const posted = await client.chat.postMessage({
            channel: config.channel,
            text: mrkdwnEscape(title(content)),
            blocks: slackBlocks(delivery, content),
            unfurl_links: false,
            unfurl_media: false,
          });
          ts = posted.ts;
          if (!ts) return { state: 'deferred', reply: 'chat.postMessage answered without a message ts' };
          await delivery.checkpoint?.(ts);
        }
        const files = await channelFiles(delivery.report, content);
        if (files.length > 0) {
          await client.filesUploadV2({
            channel_id: config.channel,
            thread_ts: ts,
            file_uploads: files.map((f) => ({ file: f.bytes, filename: f.name, title: f.name })),
          });
        }
        return {
          state: 'accepted',
          reply: `posted ${ts} in ${config.channel}${files.length ? `; uploaded ${files.map((f) => f.name).join(', ')}` : ''}`,
        };
      } catch (error) {
        return slackFailure(error, delivery.at, ts);
      }
    },
    async notice(notice) {
      try {
        const client = await slack();
        const posted = await client.chat.postMessage({
          channel: config.channel,
          text: mrkdwnEscape(notice.title),
          blocks: slackNoticeBlocks(notice),
          unfurl_links: false,
          unfurl_media: false,
        });
        return { state: 'accepted', reply: `posted ${posted.ts ?? '(no ts)'} in ${config.channel}` };
      } catch (error) {
        return slackFailure(error, notice.at, undefined);
      }
    },
    async alert(delivery, alert) {
      // One message and no files, so there is no half-done state to checkpoint.
      try {
        const client = await slack();
        const posted = await client.chat.postMessage({
          channel: config.channel,
          text: mrkdwnEscape(alertTitle(alert)),
          blocks: slackAlertBlocks(alert),
          unfurl_links: false,
          unfurl_media: false,
        });
        return { state: 'accepted', reply: `posted ${posted.ts ?? '(no ts)'} in ${config.channel}` };
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
    data?: { error?: string };
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
      return TRANSIENT_PLATFORM.has(code) ? { state: 'deferred', reply } : { state: 'refused', reply };
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
