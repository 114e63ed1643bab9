// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config file's own interpolation syntax.
import { z } from 'zod';
import { channelTimeout } from './channel-timeout.js';
import { folderChannel, s3Channel, sftpChannel } from './storage-channels.js';

/**
 * `channels[]`: named destinations other than email (Slack, Microsoft Teams, signed webhooks) that
 * reports reference by name (`reports[].channels`). Secrets (`token`, `webhook_url`, `secret`) take
 * `${VAR}` or a `*_file` (Docker secrets); rules.ts checks that exactly one of each pair is set.
 */

const channelName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, { message: 'use letters, digits, ".", "-" and "_" (no spaces)' })
  .refine((name) => name !== 'email', { message: '"email" is reserved for reports[].email' })
  .describe('Unique name of the channel, used in reports[].channels, the outbox and `history`. Required.');

const httpUrl = (what: string) => z.url({ protocol: /^https?$/, error: `expected an http(s) URL (${what})` });

const secretFile = (what: string) =>
  z
    .string()
    .min(1)
    .optional()
    .describe(
      `File holding the ${what} (a Docker secret); one trailing newline is ignored. Relative to the config file.`,
    );

/** Teams' and webhooks' wait for an answer (Slack's has its own text: it looks before posting again). */
const postTimeout = channelTimeout(
  60,
  "How long one POST is waited for, in seconds, before the attempt counts as unknown and is retried (same `webhook-id` / card: a receiver that got it and answered late sees a second copy, so keep it above the receiver's slowest answer). Default 60.",
);

export const slackChannel = z
  .strictObject({
    name: channelName,
    type: z.literal('slack').describe('`slack`. Required.'),
    token: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Slack bot token (xoxb-…), sent as `Authorization: Bearer`. Set this or `token_file`; prefer `${VAR}`.',
      ),
    token_file: secretFile('Slack bot token'),
    channel: z
      .string()
      .min(1)
      .describe('Slack channel id the bot posts to (C0123ABCD; the bot must be a member). Required.'),
    api_url: httpUrl('the Slack Web API base, ending in /api/')
      .default('https://slack.com/api/')
      .describe('Slack Web API base URL (tests, proxies). Default https://slack.com/api/.'),
    timeout_seconds: channelTimeout(
      30,
      'How long one Slack Web API call is waited for, in seconds, before the attempt counts as unknown; the next attempt looks for the message (conversations.history, by its metadata) before posting again. Default 30.',
    ),
    allow_private_network: z
      .boolean()
      .default(false)
      .describe(
        '`reportd check` refuses this channel when its URL host is, or resolves to, a loopback, link-local (cloud metadata), private or carrier-grade NAT address; `true` allows it (a sidecar, a receiver on this network, a test stand-in). Default false.',
      ),
  })
  .describe('Posts the headline KPIs (Block Kit) and uploads the PDF into the thread of that message.');

export const teamsChannel = z
  .strictObject({
    name: channelName,
    type: z.literal('teams').describe('`teams`. Required.'),
    webhook_url: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The Teams incoming webhook or Workflows URL (it is the credential). Set this or `webhook_url_file`; prefer `${VAR}`.',
      ),
    webhook_url_file: secretFile('Teams webhook URL'),
    timeout_seconds: postTimeout,
    allow_private_network: z
      .boolean()
      .default(false)
      .describe(
        '`reportd check` refuses this channel when its URL host is, or resolves to, a loopback, link-local (cloud metadata), private or carrier-grade NAT address; `true` allows it (a sidecar, a receiver on this network, a test stand-in). Default false.',
      ),
  })
  .describe('Posts an Adaptive Card with the headline KPIs; Teams webhooks carry no files.');

export const webhookChannel = z
  .strictObject({
    name: channelName,
    type: z.literal('webhook').describe('`webhook`. Required.'),
    url: httpUrl('the receiver').describe('Where the signed JSON is POSTed. Required.'),
    secret: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Signing secret in the Standard Webhooks form `whsec_<base64>`. Set this or `secret_file`; prefer `${VAR}`.',
      ),
    secret_file: secretFile('signing secret'),
    timeout_seconds: postTimeout,
    allow_private_network: z
      .boolean()
      .default(false)
      .describe(
        '`reportd check` refuses this channel when its URL host is, or resolves to, a loopback, link-local (cloud metadata), private or carrier-grade NAT address; `true` allows it (a sidecar, a receiver on this network, a test stand-in). Default false.',
      ),
    include_files: z
      .boolean()
      .default(false)
      .describe(
        'true: the files travel base64-encoded in the body; false: only names, sizes and SHA-256. Default false.',
      ),
  })
  .describe('POSTs a JSON event signed as the Standard Webhooks specification says.');

export const channel = z
  .discriminatedUnion(
    'type',
    [slackChannel, teamsChannel, webhookChannel, s3Channel, sftpChannel, folderChannel],
    {
      error: 'expected a channel with type slack, teams, webhook, s3, sftp or folder',
    },
  )
  .describe('A named destination other than email.');

export type ChannelInput = z.output<typeof channel>;
export type ChannelType = ChannelInput['type'];
/** The channels that post messages (storage channels keep files: storage-channels.ts). */
export type MessageChannelType = 'slack' | 'teams' | 'webhook';

/** The secret field of each message channel type and its `*_file` sibling (storage channels hold none). */
export const CHANNEL_SECRETS: Record<MessageChannelType, { key: string; file: string }> = {
  slack: { key: 'token', file: 'token_file' },
  teams: { key: 'webhook_url', file: 'webhook_url_file' },
  webhook: { key: 'secret', file: 'secret_file' },
};

/** A `whsec_` secret's key bytes, or undefined when it is not `whsec_` + base64. */
export function webhookKey(secret: string): Buffer | undefined {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  if (!match) return undefined;
  const key = Buffer.from(match[1]!, 'base64');
  return key.length >= 16 ? key : undefined;
}
