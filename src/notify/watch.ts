import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import { readerLabel } from '../config/recipient-names.js';
import type { Logger } from '../log.js';
import { lastFinishedDelivery, lastFinishedReaderRows, type NoticeTargets } from '../outbox/notices.js';
import { getJobCursor, setJobCursor } from '../store/job-state.js';
import { getQuerySet } from '../store/query-sets.js';
import type { Store } from '../store/sql.js';
import type { SyncSummary } from '../sync/types.js';
import { clearIncident, type IncidentKind, listOpenIncidents, openIncident } from './incidents.js';

/**
 * Turns what the daemon observes into incidents (notify/incidents.ts): after every sync pass (a
 * credential refused with -4, a set gone with -132, the sync failing `after_failed_syncs` passes in
 * a row) and after every outbox drain (a report's newest finished delivery failed for good). Each
 * incident opens once and clears once; the store queues the notices in the same transaction.
 */
/**
 * Failed passes in a row, kept in the store (job_state) rather than in a process: a cron install runs
 * each pass in a new `reportd sync`, and a restarted daemon should not forget two failures already seen.
 */
const FAILED_SYNCS = 'notify:failed-syncs';

export class IncidentWatch {
  constructor(private readonly options: { config: Config; store: Store; clock: Clock; logger: Logger }) {}

  /** Top-level addresses and channels, plus the report's own for a report's incident. */
  recipients(report?: string): NoticeTargets {
    const { config } = this.options;
    const own = config.reports.find((r) => r.name === report)?.notify_on_failure;
    return {
      recipients: [...new Set([...config.notify_on_failure.email, ...(own?.email ?? [])])],
      channels: [...new Set([...config.notify_on_failure.channels, ...(own?.channels ?? [])])],
    };
  }

  private async open(key: string, kind: IncidentKind, detail: string, report?: string): Promise<boolean> {
    const opened = await openIncident(this.options.store, {
      key,
      kind,
      report,
      detail,
      at: this.options.clock.now(),
      ...this.recipients(report),
    });
    if (opened) this.options.logger.warn({ incident: key }, `incident opened: ${detail}`);
    return opened;
  }

  private async clear(key: string, detail: string, report?: string): Promise<boolean> {
    const cleared = await clearIncident(this.options.store, {
      key,
      detail,
      at: this.options.clock.now(),
      ...this.recipients(report),
    });
    if (cleared) this.options.logger.info({ incident: key }, `incident cleared: ${detail}`);
    return cleared;
  }

  /** Returns whether a notice may have been queued (the caller wakes the worker). */
  async afterSyncPass(summary: SyncSummary, outcome: string): Promise<boolean> {
    if (summary.aborted) return false;
    const { config, store } = this.options;
    let changed = false;
    for (const account of config.accounts) {
      const refused = summary.errors.find((e) => e.account === account.name && e.kind === 'not_authorized');
      const key = `credential:${account.name}`;
      changed =
        (refused
          ? await this.open(
              key,
              'credential_refused',
              `account ${account.name}: the API refused the credential (-4): ${refused.message}`,
            )
          : await this.clear(key, `account ${account.name}: the credential is accepted again`)) || changed;
    }
    for (const gone of summary.goneSets) {
      const name = (await getQuerySet(store, gone.account, gone.querySetId))?.name;
      changed =
        (await this.open(
          `set-gone:${gone.account}:${gone.querySetId}`,
          'set_gone',
          `account ${gone.account}: query set ${gone.querySetId}${name ? ` (${name})` : ''} is gone (-132) and is no longer synced`,
        )) || changed;
    }
    for (const incident of await listOpenIncidents(store)) {
      if (incident.kind !== 'set_gone') continue;
      const [, account = '', id = ''] = incident.key.split(':');
      if ((await getQuerySet(store, account, Number(id)))?.state === 'active') {
        changed =
          (await this.clear(incident.key, `account ${account}: query set ${id} is listed again`)) || changed;
      }
    }
    // A refused credential is its own incident; counting it here too would send two notices for one cause.
    const onlyRefused = summary.errors.length > 0 && summary.errors.every((e) => e.kind === 'not_authorized');
    const stored = (await getJobCursor<number>(store, FAILED_SYNCS)) ?? 0;
    let failedInARow = stored;
    if (outcome === 'failed' && !onlyRefused) failedInARow++;
    else if (outcome !== 'failed') failedInARow = 0;
    // Written on a change only: a healthy install never grows the row.
    if (failedInARow !== stored) await setJobCursor(store, FAILED_SYNCS, failedInARow);
    const limit = config.notify_on_failure.after_failed_syncs;
    if (failedInARow >= limit) {
      const reason = summary.errors.find((e) => e.kind !== 'not_authorized')?.message ?? 'sync pass failed';
      changed =
        (await this.open(
          'sync',
          'sync_failing',
          `the sync failed ${failedInARow} passes in a row: ${reason}`,
        )) || changed;
    } else if (outcome === 'ok' || outcome === 'incomplete') {
      changed = (await this.clear('sync', 'a sync pass went through again')) || changed;
    }
    return changed;
  }

  /**
   * After the outbox worked: per (report or alert) × destination, that destination's newest
   * finished row decides its incident. Opened by that destination's failure for good, cleared only
   * by that destination's success: a webhook that works says nothing about a Slack that does not.
   */
  async reconcileDeliveries(): Promise<boolean> {
    const { config, store } = this.options;
    const targets = [
      ...config.reports.map((r) => ({ kind: 'report' as const, entry: r })),
      ...(config.alerts ?? []).map((a) => ({ kind: 'alert' as const, entry: a })),
    ];
    let changed = false;
    for (const { kind, entry } of targets) {
      if (kind === 'report' && 'recipients' in entry && entry.recipients) {
        changed = (await this.reconcileReaders(entry.name)) || changed;
        continue;
      }
      const destinations = [...(entry.email ? ['email'] : []), ...(entry.channels ?? [])];
      for (const destination of destinations) {
        const last = await lastFinishedDelivery(store, { kind, name: entry.name, destination });
        if (!last) continue;
        const what = `${kind} ${entry.name} to ${destination}`;
        const key = `delivery:${kind}:${entry.name}:${destination}`;
        // A report's incident also goes to the report's own notify_on_failure; an alert's to the top level.
        const report = kind === 'report' ? entry.name : undefined;
        changed =
          (last.state === 'failed'
            ? await this.open(
                key,
                'delivery_failed',
                `${what}: could not be delivered: ${last.lastError ?? 'no reason recorded'}`,
                report,
              )
            : await this.clear(key, `${what}: delivered again`, report)) || changed;
      }
    }
    return changed;
  }

  /**
   * A recipient table: each reader is a destination of its own, so one reader's failure opens an
   * incident naming that reader (file and line), and only that reader's success clears it. Only
   * failed readers and open incidents are touched: a drain of 10,000 sent readers clears nothing.
   */
  private async reconcileReaders(name: string): Promise<boolean> {
    const { config, store } = this.options;
    const report = config.reports.find((r) => r.name === name);
    const keyOf = (destination: string) => `delivery:report:${name}:${destination}`;
    const open = new Set((await listOpenIncidents(store)).map((incident) => incident.key));
    let changed = false;
    for (const last of await lastFinishedReaderRows(store, name)) {
      const key = keyOf(last.destination);
      const what = `report ${name} for ${readerLabel(report, last.destination) ?? last.destination}`;
      if (last.state === 'failed')
        changed =
          (await this.open(
            key,
            'delivery_failed',
            `${what}: could not be delivered: ${last.lastError ?? 'no reason recorded'}`,
            name,
          )) || changed;
      else if (open.has(key)) changed = (await this.clear(key, `${what}: delivered again`, name)) || changed;
    }
    return changed;
  }
}
