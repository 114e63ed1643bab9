import type { ChannelConfig } from '../../config/schema.js';
import { createSlackSender } from './slack.js';
import { createTeamsSender } from './teams.js';
import type { ChannelSender } from './types.js';
import { createWebhookSender } from './webhook.js';

export type {
  ChannelAlert,
  ChannelDelivery,
  ChannelNotice,
  ChannelResult,
  ChannelSender,
} from './types.js';

/** The sender of a configured channel. */
export function createChannelSender(channel: ChannelConfig): ChannelSender {
  switch (channel.type) {
    case 'slack':
      return createSlackSender(channel);
    case 'teams':
      return createTeamsSender(channel);
    case 'webhook':
      return createWebhookSender(channel);
  }
}

/** One sender per configured channel, by name (created once per process). */
export function channelSenders(channels: readonly ChannelConfig[]): Map<string, ChannelSender> {
  return new Map(channels.map((c) => [c.name, createChannelSender(c)]));
}
