import type { Composer } from './message.js';
import { channelNotice, noticeForRow, noticeMessage } from './notice-text.js';

/**
 * A failure notice: its text comes from the incident it announces (compose/notice-text.ts), nothing
 * rendered. Email recipients were fixed when the notice was queued (incidents.ts).
 */
export function noticeComposer(from: string): Composer {
  return async (row, context) => {
    const built = await noticeForRow(context.store, row);
    if ('error' in built) return { unbuildable: built.error };
    // The channel left the config after the notice was queued: nothing would ever send it.
    if (!context.hasDestination) return { unbuildable: `no channel named "${row.destination}"` };
    const { notice, incident } = built;
    const { at: _at, ...forChannels } = channelNotice(notice, incident, context.clock.now());
    return {
      message: {
        id: row.messageId,
        event: forChannels.event,
        notice: forChannels,
        email: async () => ({
          message: noticeMessage(notice, incident, from),
          recipients: notice.recipients,
        }),
      },
    };
  };
}
