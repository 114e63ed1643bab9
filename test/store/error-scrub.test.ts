import { afterEach, describe, expect, it } from 'vitest';
import { clearSecrets, registerSecret } from '../../src/secrets.js';
import { getAccount, recordAccountPass } from '../../src/store/accounts.js';
import type { Store } from '../../src/store/db.js';
import {
  claimNextDelivery,
  enqueueDelivery,
  getDelivery,
  markFailed,
  markRetry,
  markSent,
} from '../../src/store/deliveries.js';
import { ensureSnapshot, invalidPayloads, savePayload } from '../../src/store/payloads.js';
import { getQuerySet, markGone, setQuerySetError } from '../../src/store/query-sets.js';
import { finishSyncRun, listSyncRuns, startSyncRun } from '../../src/store/sync-runs.js';
import { seedCatalog } from '../sync/helpers/seed-catalog.js';
import { tempStore } from '../sync/helpers/temp-store.js';

/**
 * Error text written to the store is scrubbed at the write: read later (after the secret was rotated
 * and is no longer registered), nothing could redact it any more.
 */
const SECRET = 'smtp-Pa55-word-XYZ';
const now = Date.UTC(2026, 2, 30, 6);

let temp: ReturnType<typeof tempStore> | undefined;
afterEach(() => {
  clearSecrets();
  temp?.cleanup();
  temp = undefined;
});

function claimed(store: Store, runId: number) {
  const { delivery } = enqueueDelivery(store, { report: 'weekly', querySetId: 101, runId }, now);
  const claim = claimNextDelivery(store, {
    worker: 'w',
    now,
    leaseMs: 60_000,
    maxAttempts: 8,
    id: delivery.id,
  });
  return claim!.delivery.id;
}

describe('error text written to the store', () => {
  it('markRetry, markFailed and markSent store no registered secret, even once it is forgotten', () => {
    temp = tempStore();
    const { store } = temp;
    registerSecret(SECRET);
    const retried = claimed(store, 1);
    const failed = claimed(store, 2);
    const sent = claimed(store, 3);
    expect(markRetry(store, retried, 'w', now, `451 auth ${SECRET} echoed`, now + 1000)).toBe(true);
    expect(markFailed(store, failed, 'w', now, `535 bad login ${SECRET}`)).toBe(true);
    expect(markSent(store, sent, now, `refused recipients: ${SECRET}@example.com`)).toBe(true);

    // The secret is rotated: the process no longer knows the old value.
    clearSecrets();
    expect(getDelivery(store, retried)!.last_error).toBe('451 auth [redacted] echoed');
    expect(getDelivery(store, failed)!.last_error).toBe('535 bad login [redacted]');
    expect(getDelivery(store, sent)!.last_error).toBe('refused recipients: [redacted]@example.com');
  });

  it('the sync-side writers (accounts, query sets, sync runs, payloads) scrub too', () => {
    temp = tempStore();
    const { store } = temp;
    seedCatalog(store, 1);
    registerSecret(SECRET);
    const error = `GET /x?secret=${SECRET} failed`;
    recordAccountPass(store, 'acme', now, error);
    setQuerySetError(store, 'acme', 101, error);
    const run = startSyncRun(store, now);
    finishSyncRun(store, run, {
      at: now,
      outcome: 'failed',
      requests: 1,
      metricRequests: 0,
      snapshotsCompleted: 0,
      error,
    });
    const snapshot = ensureSnapshot(store, { account: 'acme', querySetId: 101, runId: 1 }, now);
    savePayload(store, snapshot.id, 'presence.gross', { data: {}, validationError: error }, now);

    clearSecrets();
    const expected = 'GET /x?secret=[redacted] failed';
    expect(getAccount(store, 'acme')!.last_error).toBe(expected);
    expect(getQuerySet(store, 'acme', 101)!.last_error).toBe(expected);
    expect(listSyncRuns(store)[0]!.error).toBe(expected);
    expect(invalidPayloads(store, snapshot.id)[0]!.error).toBe(expected);

    registerSecret(SECRET);
    markGone(store, 'acme', 101, `gone (${SECRET})`, now);
    clearSecrets();
    expect(getQuerySet(store, 'acme', 101)!.last_error).toBe('gone ([redacted])');
  });
});
