import type { Config } from '../config/index.js';
import {
  type ChannelSender,
  createChannelSender,
  type MessageChannelConfig,
} from '../delivery/channels/index.js';
import type { EmailContent } from '../delivery/content.js';
import { channelPreview } from '../delivery/dry-run.js';
import { scrub } from '../secrets.js';

/**
 * The studio's Slack, Teams and webhook tabs: what each channel would be sent, built by the channel's
 * own sender through the function `deliver --dry-run` uses (channelPreview), never a copy of it.
 */

/** One channel's payload: the report's own channel, or an example one of a type it does not use. */
export interface ChannelPayload {
  type: ChannelSender['type'];
  /** The channel's name; absent for an example. */
  name?: string;
  payload: unknown;
}

const CHANNEL_TYPES = ['slack', 'teams', 'webhook'] as const;

/**
 * Senders for the types a report has no channel of, so every payload can be seen. Their destinations
 * are placeholders and preview() never reaches the network.
 */
const EXAMPLE_CHANNELS: Record<ChannelSender['type'], MessageChannelConfig> = {
  slack: {
    type: 'slack',
    name: 'example',
    token: 'none',
    channel: '#reports',
    api_url: 'https://slack.com/api',
  },
  teams: { type: 'teams', name: 'example', webhook_url: 'https://example.invalid/teams' },
  webhook: {
    type: 'webhook',
    name: 'example',
    url: 'https://example.invalid/webhook',
    secret: 'whsec_c3R1ZGlvLWV4YW1wbGUtc2VjcmV0LTAwMDA=',
    include_files: false,
  },
} as Record<ChannelSender['type'], MessageChannelConfig>;

/** The report's channels' payloads, then an example of each type it has none of. */
export async function channelPayloads(
  senders: ReadonlyMap<string, ChannelSender>,
  report: Config['reports'][number] | undefined,
  row: Parameters<typeof channelPreview>[2],
  content: EmailContent,
): Promise<ChannelPayload[]> {
  const out: ChannelPayload[] = [];
  const now = Date.now();
  for (const name of report?.channels ?? []) {
    const sender = senders.get(name);
    if (sender)
      out.push({
        type: sender.type,
        name,
        payload: await channelPreview(sender, name, row, content, now),
      });
  }
  for (const type of CHANNEL_TYPES) {
    if (out.some((c) => c.type === type)) continue;
    const sender = createChannelSender(EXAMPLE_CHANNELS[type]);
    out.push({
      type,
      payload: await channelPreview(sender, 'example', row, content, now),
    });
  }
  // Scrubbed as `deliver --dry-run` prints them: a webhook URL may carry a token in its query string.
  return JSON.parse(scrub(JSON.stringify(out))) as ChannelPayload[];
}
