import { type ClaimScope, type ClaimTarget, EMAIL_DESTINATION } from '../store/deliveries.js';

/** What a config entry (a report or an alert) says about where it goes. */
export interface Destined {
  name: string;
  email?: unknown;
  channels?: readonly string[];
}

/**
 * The outbox rows a worker with this config can build and send: each report's and alert's email
 * (when it has an email section) and each of its channels that the config defines. The claim query
 * takes only these (store/deliveries.ts `ClaimTarget`), so daemons with different report sets on one
 * store each deliver their own and never fail another's rows.
 */
export function claimScope(options: {
  reports: readonly Destined[];
  alerts?: readonly Destined[];
  /** The channels this process can post to, by name. */
  channels?: { has(name: string): boolean };
  /** The storage channels this process writes to, by name. */
  storage?: { has(name: string): boolean };
  /** The destinations whose failure notices it sends (see OutboxOptions.noticeDestinations). */
  noticeDestinations?: readonly string[];
}): ClaimScope {
  const targets: ClaimTarget[] = [];
  const add = (kind: ClaimTarget['kind'], entry: Destined) => {
    if (entry.email) targets.push({ kind, name: entry.name, destination: EMAIL_DESTINATION });
    for (const channel of entry.channels ?? []) {
      if (options.channels?.has(channel) || options.storage?.has(channel))
        targets.push({ kind, name: entry.name, destination: channel });
    }
  };
  for (const report of options.reports) add('report', report);
  for (const alert of options.alerts ?? []) add('alert', alert);
  // Notices are claimed by destination alone: whichever report or sync they are about.
  for (const destination of options.noticeDestinations ?? [])
    targets.push({ kind: 'notice', name: '', destination });
  return targets;
}
