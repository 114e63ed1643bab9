import { getIncident, type Incident } from '../../notify/incidents.js';
import { idStem } from '../../outbox/delivery-id.js';
import { type Notice, noticeOf, noticeRecipients } from '../../outbox/notices.js';
import type { Delivery } from '../../outbox/row.js';
import type { Store } from '../../store/sql.js';
import type { ChannelNotice } from '../channels/index.js';
import { cardRow, emailClose, emailOpen, escapeHtml } from './email-layout.js';

/**
 * What a failure notice says. The incidents queue notices as rows of the delivery queue (kind
 * `notice`, notify/incidents.ts); the outbox claims, sends and retries them like every other row and
 * builds their message here, one row per destination: `email`, or a channel posted through its
 * sender's `notice`. Plain text: the text quotes API and SMTP replies, which must not become markup
 * anywhere. The store outage's notices (daemon/store-outage.ts) use the same texts, sent directly.
 */

const TITLES: Record<Incident['kind'], (i: Incident) => string> = {
  delivery_failed: (i) => `report ${i.report ?? ''} could not be delivered`,
  credential_refused: (i) => `${i.key.slice('credential:'.length)}: API credential refused`,
  sync_failing: () => 'the sync keeps failing',
  set_gone: (i) => `query set ${i.key.split(':')[2] ?? ''} is gone`,
  store_unreachable: () => 'the store is unreachable',
};

/** What the texts read of a notice: the store's rows, or the store outage's notices built in memory. */
export type NoticeFields = Pick<Notice, 'kind' | 'createdAt' | 'recipients' | 'messageId' | 'attempts'>;

/** A header value from config names and ids: one line, no control characters. */
const headerSafe = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').slice(0, 200);

/** The title and plain text of a notice, shared by the email and every channel. */
export function noticeText(notice: NoticeFields, incident: Incident) {
  const title = TITLES[incident.kind](incident);
  const iso = (at: number) => new Date(at).toISOString();
  const cleared = notice.kind === 'cleared';
  const lines = cleared
    ? [
        `Resolved: ${incident.clearedDetail ?? ''}`,
        '',
        `The incident opened at ${iso(incident.openedAt)}:`,
        incident.detail,
        `Cleared at ${iso(incident.clearedAt ?? notice.createdAt)}.`,
      ]
    : [
        incident.detail,
        '',
        `Since ${iso(incident.openedAt)}. You get one more message when this clears.`,
        'Details: `reportd history` and the status page of the daemon.',
      ];
  return { title: `${cleared ? 'resolved: ' : ''}${title}`, text: `${lines.join('\n')}\n` };
}

export function noticeMessage(notice: NoticeFields, incident: Incident, from: string) {
  const { title, text } = noticeText(notice, incident);
  const subject = headerSafe(`[reportd] ${title}`);
  return {
    from,
    to: notice.recipients,
    subject,
    messageId: notice.messageId,
    // The plain part opens with the title the HTML shows as its heading, so both parts say the same.
    text: `${subject}\n\n${text}`,
    html: noticeHtml(subject, text),
  };
}

/**
 * The notice's text as HTML in every email's fluid card (email-layout.ts): the same lines, escaped
 * (they quote API and SMTP replies), one paragraph per block, so the HTML and text parts say the same.
 */
function noticeHtml(subject: string, text: string): string {
  const blocks = text
    .trimEnd()
    .split(/\n\n+/)
    .map((block) => cardRow(block.split('\n').map(escapeHtml).join('<br>')));
  return [
    emailOpen({ lang: 'en', title: subject }),
    cardRow(`<h1 style="font-size:18px;margin:0;">${escapeHtml(subject)}</h1>`, 'text', '20px 16px 4px 16px'),
    ...blocks,
    cardRow('&nbsp;', 'text', '0 16px 12px 16px'),
    emailClose(),
  ].join('\n');
}

/** The notice for a channel sender; its id (`webhook-id`) is the row's Message-ID stem, stable across retries. */
export function channelNotice(notice: NoticeFields, incident: Incident, at: number): ChannelNotice {
  const { title, text } = noticeText(notice, incident);
  return {
    id: idStem(notice.messageId),
    event: notice.kind === 'cleared' ? 'incident.cleared' : 'incident.opened',
    at,
    // An earlier attempt may have been posted with its answer lost: Slack looks before posting.
    lookFirst: notice.attempts > 1,
    since: notice.createdAt,
    title: headerSafe(title),
    text,
    incident: { ...incident },
  };
}

/**
 * The notice a queue row carries and the incident it announces, or why it cannot be built (the
 * incident is gone): what the outbox composes the email or the channel's post from.
 */
export async function noticeForRow(
  store: Store,
  row: Delivery,
): Promise<{ notice: Notice; incident: Incident } | { error: string }> {
  const notice = noticeOf(row);
  const incident = await getIncident(store, notice.incidentId);
  if (!incident) return { error: 'incident missing' };
  return { notice: { ...notice, recipients: await noticeRecipients(store, row) }, incident };
}
