import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { configFromObject } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { listIncidents } from '../../src/notify/incidents.js';
import { IncidentWatch } from '../../src/notify/watch.js';
import { upsertAccount } from '../../src/store/accounts.js';
import { openStore } from '../../src/store/db.js';
import { emptySyncSummary, type SyncSummary } from '../../src/sync/types.js';
import { tempDir } from '../delivery/smtp-helpers.js';

/**
 * `after_failed_syncs` counts failed passes in a row in the store, not in a process: a cron install
 * runs every pass in a new `reportd sync`, and each opens the store afresh (as here: one watch per
 * "process", the store file closed in between).
 */
let tmp: ReturnType<typeof tempDir>;
let file: string;
beforeEach(async () => {
  tmp = tempDir();
  file = join(tmp.dir, 'reportd.sqlite');
  const store = await openStore(file);
  await upsertAccount(store, {
    name: 'acme',
    baseUrl: 'https://api.example.com/v2/integration',
    budgetKey: 'k',
  });
  await store.close();
});
afterEach(() => tmp.cleanup());

const config = () =>
  configFromObject(
    {
      accounts: [
        { name: 'acme', base_url: 'https://api.example.com/v2/integration', api_key: 'k', api_secret: 's' },
      ],
      smtp: { host: 'mail.example.com', from: 'reports@example.com' },
      notify_on_failure: { email: ['ops@example.com'], after_failed_syncs: 2 },
    },
    tmp.dir,
  );

const failed: SyncSummary = {
  ...emptySyncSummary(1),
  errors: [{ account: 'acme', kind: 'internal', message: 'account acme: boom' }],
};

/** One `reportd sync` process's view after its pass: a fresh watch on a freshly opened store. */
async function passInNewProcess(summary: SyncSummary, outcome: string): Promise<string[]> {
  const store = await openStore(file);
  try {
    const watch = new IncidentWatch({
      config: config(),
      store,
      clock: new FakeClock(),
      logger: silentLogger,
    });
    await watch.afterSyncPass(summary, outcome);
    return (await listIncidents(store, 10)).filter((i) => i.clearedAt === null).map((i) => i.detail);
  } finally {
    await store.close();
  }
}

describe('failed sync passes, counted across processes', () => {
  it('opens "sync failing" at the second failed pass though each ran in its own process', async () => {
    expect(await passInNewProcess(failed, 'failed')).toEqual([]);
    expect(await passInNewProcess(failed, 'failed')).toEqual([
      'the sync failed 2 passes in a row: account acme: boom',
    ]);
  });

  it('a good pass in between starts the count again', async () => {
    expect(await passInNewProcess(failed, 'failed')).toEqual([]);
    expect(await passInNewProcess(emptySyncSummary(1), 'ok')).toEqual([]);
    expect(await passInNewProcess(failed, 'failed')).toEqual([]);
  });
});
