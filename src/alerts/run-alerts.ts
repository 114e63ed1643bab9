import type { AlertConfig } from '../config/alert-section.js';
import { type Logger, silentLogger } from '../log.js';
import { enqueueDelivery } from '../outbox/enqueue.js';
import { envelopeRecipients } from '../outbox/envelope.js';
import { EMAIL_DESTINATION, type EnqueueResult } from '../outbox/row.js';
import { runRowId } from '../outbox/row-ids.js';
import { lifecycleState } from '../schedule/lifecycle.js';
import { getAlertCursor, saveFiring, setAlertCursor } from '../store/alerts.js';
import { newestRunFirst } from '../store/query-sets.js';
import { inTransaction, type Store } from '../store/sql.js';
import { evaluateRules } from './evaluate.js';
import { runFacts, type SetHistory, setHistories } from './facts.js';
import type { Evaluation, RunFacts } from './run-facts.js';

/**
 * What runs after every sync pass (daemon and `reportd sync`): each alert looks at the newest stored
 * reportable run of each set it watches. The first look at a set only records that run (a fresh install
 * or a new alert does not mail history); a newer run is compared with the run stored before it, so a
 * backfill of several runs evaluates only the newest. Everything that fired for one (alert, set, run)
 * becomes one stored firing and one outbox row (kind `alert`); the cursor moves after both, and the
 * outbox's UNIQUE key makes a crash in between harmless (the next pass finds the row already queued).
 */

export interface AlertContent {
  alert: string;
  account: string;
  querySetId: number;
  querySet: string;
  brand: string;
  run: { id: number; label: string };
  previousRun: { id: number; label: string };
  firings: Evaluation['firings'];
}

export interface AlertPassOptions {
  store: Store;
  alerts: readonly AlertConfig[];
  accounts: readonly { name: string }[];
  /** The sender (`smtp.from`), part of each Message-ID like a report's. */
  from: string;
  now: number;
  logger?: Logger;
}

export function alertAccount(alert: AlertConfig, accounts: readonly { name: string }[]): string | undefined {
  return alert.account ?? (accounts.length === 1 ? accounts[0]!.name : undefined);
}

export async function historiesOf(
  store: Store,
  alert: AlertConfig,
  accounts: readonly { name: string }[],
): Promise<SetHistory[]> {
  const account = alertAccount(alert, accounts);
  if (!account) return [];
  return setHistories(store, {
    account,
    ...(alert.query_sets === 'all' ? {} : { querySetIds: alert.query_sets }),
  });
}

/** Evaluates the newest run of a set's history (or `runId`) against the runs stored before it. */
export async function evaluateSet(
  store: Store,
  alert: AlertConfig,
  history: SetHistory,
  runId?: number,
): Promise<{ content: AlertContent; skipped: Evaluation['skipped'] } | undefined> {
  const end =
    runId === undefined
      ? history.snapshots.length
      : history.snapshots.findIndex((s) => s.run_id === runId) + 1;
  if (end <= 0) return undefined;
  // The baseline needs at most 4 earlier runs; the chart shows every stored run up to this one.
  const facts: RunFacts[] = [];
  for (const snapshot of history.snapshots.slice(0, end)) facts.push(await runFacts(store, snapshot));
  const evaluation = evaluateRules(alert.rules, facts);
  const current = facts.at(-1)!;
  const previous = facts.at(-2);
  return {
    content: {
      alert: alert.name,
      account: history.account,
      querySetId: history.querySetId,
      querySet: history.querySet,
      brand: history.brand,
      run: { id: current.runId, label: current.label },
      previousRun: previous ? { id: previous.runId, label: previous.label } : { id: 0, label: '' },
      firings: evaluation.firings,
    },
    skipped: evaluation.skipped,
  };
}

export async function runAlertPass(options: AlertPassOptions): Promise<EnqueueResult[]> {
  const { store, now } = options;
  const logger = (options.logger ?? silentLogger).child({ component: 'alerts' });
  const results: EnqueueResult[] = [];
  for (const alert of options.alerts) {
    for (const history of await historiesOf(store, alert, options.accounts)) {
      const newest = history.snapshots.at(-1);
      if (!newest) continue;
      const key = { alert: alert.name, account: history.account, querySetId: history.querySetId };
      const run = { runId: newest.run_id, createdAt: newest.run_created_at };
      const cursor = await getAlertCursor(store, alert.name, history.account, history.querySetId);
      const log = logger.child({
        alert: alert.name,
        account: history.account,
        querySetId: history.querySetId,
        runId: newest.run_id,
      });
      if (!cursor) {
        await setAlertCursor(store, key, run, now);
        log.info('first evaluation of this alert for this set: recorded the newest run, nothing sent');
        continue;
      }
      // Paused, not yet active or ended (dates in UTC, as for `trigger: new_run` reports): the run is
      // recorded as seen, so resuming the alert does not mail what happened while it was off.
      const state = lifecycleState(alert, 'UTC', now);
      if (state !== 'active') {
        await setAlertCursor(store, key, run, now);
        log.info({ state }, `alert is ${state}: recorded the newest run, nothing sent`);
        continue;
      }
      const newer =
        newestRunFirst(
          { id: newest.run_id, created_at: newest.run_created_at },
          { id: cursor.run_id, created_at: cursor.run_created_at },
        ) < 0;
      if (!newer) continue;
      const evaluated = await evaluateSet(store, alert, history);
      if (!evaluated) continue;
      for (const skip of evaluated.skipped)
        log.warn({ rule: skip.rule }, `alert rule not evaluated: ${skip.reason}`);
      const { content } = evaluated;
      if (content.firings.length > 0) {
        await inTransaction(store, async () => {
          await saveFiring(store, { ...key, runId: newest.run_id }, content, now);
          // One row per destination (email first, then each channel), each settled and retried alone.
          const destinations = [...(alert.email ? [EMAIL_DESTINATION] : []), ...(alert.channels ?? [])];
          for (const destination of destinations) {
            const deliveryKey = {
              report: alert.name,
              destination,
              querySetId: history.querySetId,
              runId: newest.run_id,
              account: history.account,
              kind: 'alert' as const,
            };
            results.push(
              await enqueueDelivery(store, deliveryKey, now, {
                messageIdFor: runRowId(
                  deliveryKey,
                  options.from,
                  alert.email ? envelopeRecipients(alert.email) : [],
                ),
              }),
            );
          }
        });
        log.info({ fired: content.firings.length }, 'alert fired: one message per destination queued');
      } else {
        log.info('alert evaluated: nothing fired');
      }
      await setAlertCursor(store, key, run, now);
    }
  }
  return results;
}
