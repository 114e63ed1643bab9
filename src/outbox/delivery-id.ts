import { createHash, randomBytes } from 'node:crypto';

/**
 * The one stable id of a delivery: the email's Message-ID, a channel's `webhook-id` and Slack's
 * message metadata. It is derived from what the delivery is, never stored state, so a rebuilt store
 * sends the same run with the same id and receivers can drop the copy.
 *
 * The ids already sit in stores and receivers' dedupe tables, so every form hashes exactly the parts
 * (and the order) it always did; test/delivery/delivery-id.test.ts pins them byte for byte.
 */

/** What a delivery is, as its id covers it. `extra` separates installations (sender, recipients). */
export type DeliveryIdentity =
  /** One run of a report or alert by email: the destination is implied by the recipients in `extra`. */
  | {
      of: 'run';
      report: string;
      account?: string | null;
      querySetId: number;
      runId: number;
      generation: number;
      extra?: readonly string[];
    }
  /** One run of a report or alert to a named channel. */
  | {
      of: 'channel-run';
      report: string;
      destination: string;
      account?: string | null;
      querySetId: number;
      runId: number;
      generation: number;
      extra?: readonly string[];
    }
  /** A digest covering exactly `covers` (digest-rows.ts `coversKey`). */
  | { of: 'digest'; report: string; covers: string; generation: number; extra?: readonly string[] };

/** `<reportd.<hash>@domain>` (an email's Message-ID) or `msg_<hash>` (Standard Webhooks' style). */
export type DeliveryIdForm = { form: 'message-id'; domain?: string } | { form: 'msg' };

/** The delivery's id in the given form. */
export function deliveryId(identity: DeliveryIdentity, form: DeliveryIdForm): string {
  const hash = createHash('sha256')
    .update(JSON.stringify(identityParts(identity)))
    .digest('hex')
    .slice(0, 32);
  return form.form === 'msg' ? `msg_${hash}` : `<reportd.${hash}@${form.domain ?? 'reportd'}>`;
}

function identityParts(identity: DeliveryIdentity): unknown[] {
  const extra = identity.extra ?? [];
  switch (identity.of) {
    case 'run':
      return [
        identity.report,
        identity.account ?? null,
        identity.querySetId,
        identity.runId,
        identity.generation,
        ...extra,
      ];
    case 'channel-run':
      return [
        identity.report,
        identity.destination,
        identity.account ?? null,
        identity.querySetId,
        identity.runId,
        identity.generation,
        ...extra,
      ];
    case 'digest':
      return [identity.report, 'digest', identity.covers, identity.generation, ...extra];
  }
}

/** The id's stem without the Message-ID's brackets and domain (a notice's `webhook-id`). */
export function idStem(messageId: string): string {
  return messageId.replace(/^<|@.*$/g, '');
}

/**
 * A failure notice's Message-ID: random, not derived, because incident ids restart in another store
 * and a Message-ID (or webhook-id) must never be reused for another notice. Its retries keep it (it is
 * stored on the row), which is all a receiver's dedupe needs.
 */
export function noticeMessageId(incidentId: number, event: 'opened' | 'cleared'): string {
  return `<reportd-notice-${incidentId}-${event}-${randomBytes(6).toString('hex')}@reportd.invalid>`;
}
