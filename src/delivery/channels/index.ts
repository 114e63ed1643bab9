import type { ChannelConfig } from '../../config/schema.js';
import { isStorageChannel, type StorageChannelConfig } from '../../config/storage-channels.js';
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

/** A channel that posts messages (storage channels have destinations of their own: destinations/storage/). */
export type MessageChannelConfig = Exclude<ChannelConfig, StorageChannelConfig>;

/** The sender of a configured message channel. */
export function createChannelSender(channel: MessageChannelConfig): ChannelSender {
  switch (channel.type) {
    case 'slack':
      return createSlackSender(channel);
    case 'teams':
      return createTeamsSender(channel);
    case 'webhook':
      return createWebhookSender(channel);
  }
}

/** One sender per configured message channel, by name (created once per process). */
export function channelSenders(channels: readonly ChannelConfig[]): Map<string, ChannelSender> {
  const senders = new Map<string, ChannelSender>();
  for (const channel of channels)
    if (!isStorageChannel(channel)) senders.set(channel.name, createChannelSender(channel));
  return senders;
}
