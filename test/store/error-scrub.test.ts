import { afterEach, describe, expect, it } from 'vitest';
import { claimNextDelivery, markFailed, markRetry, markSent } from '../../src/outbox/deliveries.js';
import { enqueueDelivery } from '../../src/outbox/enqueue.js';
import { getDelivery } from '../../src/outbox/reads.js';
import { clearSecrets, registerSecret } from '../../src/secrets.js';
import { getAccount, recordAccountPass } from '../../src/store/accounts.js';
import { ensureSnapshot, invalidPayloads, savePayload } from '../../src/store/payloads.js';
import { getQuerySet, markGone, setQuerySetError } from '../../src/store/query-sets.js';
import type { Store } from '../../src/store/sql.js';
import { finishSyncRun, listSyncRuns, startSyncRun } from '../../src/store/sync-runs.js';
import { seedCatalog } from '../sync/helpers/seed-catalog.js';
import { type TempStore, tempStore } from '../sync/helpers/temp-store.js';

/**
 * Error text written to the store is scrubbed at the write: read later (after the secret was rotated
 * and is no longer registered), nothing could redact it any more.
 */
const SECRET = 'smtp-Pa55-word-XYZ';
const now = Date.UTC(2026, 2, 30, 6);

let temp: TempStore | undefined;
afterEach(async () => {
  clearSecrets();
  await temp?.cleanup();
  temp = undefined;
});

async function claimed(store: Store, runId: number) {
  const { delivery } = await enqueueDelivery(store, { report: 'weekly', querySetId: 101, runId }, now);
  const claim = await claimNextDelivery(store, {
    worker: 'w',
    now,
    leaseMs: 60_000,
    maxAttempts: 8,
    id: delivery.id,
  });
  return { id: claim!.delivery.id, token: claim!.delivery.token ?? '' };
}

describe('error text written to the store', () => {
  it('markRetry, markFailed and markSent store no registered secret, even once it is forgotten', async () => {
    temp = await tempStore();
    const { store } = temp;
    registerSecret(SECRET);
    const retried = await claimed(store, 1);
    const failed = await claimed(store, 2);
    const sent = await claimed(store, 3);
    expect(await markRetry(store, retried, now, `451 auth ${SECRET} echoed`, now + 1000)).toBe(true);
    expect(await markFailed(store, failed, now, `535 bad login ${SECRET}`)).toBe(true);
    expect(await markSent(store, sent, now, `refused recipients: ${SECRET}@example.com`)).toBe(true);

    // The secret is rotated: the process no longer knows the old value.
    clearSecrets();
    expect((await getDelivery(store, retried.id))!.lastError).toBe('451 auth [redacted] echoed');
    expect((await getDelivery(store, failed.id))!.lastError).toBe('535 bad login [redacted]');
    expect((await getDelivery(store, sent.id))!.lastError).toBe('refused recipients: [redacted]@example.com');
  });

  it('the sync-side writers (accounts, query sets, sync runs, payloads) scrub too', async () => {
    temp = await tempStore();
    const { store } = temp;
    await seedCatalog(store, 1);
    registerSecret(SECRET);
    const error = `GET /x?secret=${SECRET} failed`;
    await recordAccountPass(store, 'acme', now, error);
    await setQuerySetError(store, 'acme', 101, error);
    const run = await startSyncRun(store, now);
    await finishSyncRun(store, run, {
      at: now,
      outcome: 'failed',
      requests: 1,
      metricRequests: 0,
      snapshotsCompleted: 0,
      error,
    });
    const snapshot = await ensureSnapshot(store, { account: 'acme', querySetId: 101, runId: 1 }, now);
    await savePayload(store, snapshot.id, 'presence.gross', { data: {}, validationError: error }, now);

    clearSecrets();
    const expected = 'GET /x?secret=[redacted] failed';
    expect((await getAccount(store, 'acme'))!.last_error).toBe(expected);
    expect((await getQuerySet(store, 'acme', 101))!.last_error).toBe(expected);
    expect((await listSyncRuns(store))[0]!.error).toBe(expected);
    expect((await invalidPayloads(store, snapshot.id))[0]!.error).toBe(expected);

    registerSecret(SECRET);
    await markGone(store, 'acme', 101, `gone (${SECRET})`, now);
    clearSecrets();
    expect((await getQuerySet(store, 'acme', 101))!.last_error).toBe('gone ([redacted])');
  });
});
