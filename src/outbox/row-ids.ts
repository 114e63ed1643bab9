import { deliveryId } from './delivery-id.js';
import { senderAddress, senderDomain } from './envelope.js';
import { type DeliveryKey, EMAIL_DESTINATION } from './row.js';

/**
 * Which identity a queued row's id covers, for every place that queues one (the outbox's reports and
 * digests, alerts): by email it covers who it goes to and from whom, so two installations sending the
 * same names and run ids to other people never share one, while a rebuilt store reproduces it; for a
 * channel it names the channel. An alert's parts start with `alert`.
 */
export function runRowId(
  key: DeliveryKey,
  from: string,
  recipients: readonly string[],
  /** By email (a Message-ID) though the destination is not `email`: a recipient table's row. */
  byEmail = (key.destination ?? EMAIL_DESTINATION) === EMAIL_DESTINATION,
): (generation: number) => string {
  const tag = key.kind === 'alert' ? ['alert'] : [];
  const destination = key.destination ?? EMAIL_DESTINATION;
  if (!byEmail)
    return (generation) =>
      deliveryId({ of: 'channel-run', ...key, destination, generation, extra: tag }, { form: 'msg' });
  const extra = [...tag, senderAddress(from), ...recipients];
  const domain = senderDomain(from);
  return (generation) => deliveryId({ of: 'run', ...key, generation, extra }, { form: 'message-id', domain });
}

/** The same for a digest covering `covers` (digest-rows.ts), bound for `destination`. */
export function digestRowId(
  report: string,
  destination: string,
  from: string,
  recipients: readonly string[],
  isEmail = destination === EMAIL_DESTINATION,
): (covers: string, generation: number) => string {
  const extra = isEmail ? [senderAddress(from), ...recipients] : [destination];
  const domain = isEmail ? senderDomain(from) : undefined;
  return (covers, generation) =>
    deliveryId({ of: 'digest', report, covers, generation, extra }, { form: 'message-id', domain });
}
