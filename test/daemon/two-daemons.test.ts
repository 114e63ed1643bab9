import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/index.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { listDeliveries } from '../../src/outbox/reads.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { openStore } from '../../src/store/db.js';
import { listSyncRuns } from '../../src/store/sync-runs.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { stubRenderer } from './helpers.js';

/** Two daemons (two processes' worth of connections, workers and schedulers) on one SQLite file. */
let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let smtp: TestSmtp;
let daemons: Daemon[] = [];

beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox({ rate: { requests: 1000, windowMs: 60_000 } });
  smtp = await startSmtp();
  const config = configFromObject(
    {
      accounts: [
        {
          name: 'acme',
          base_url: sandbox.baseUrl,
          api_key: sandbox.apiKey,
          api_secret: sandbox.apiSecret,
          rate_limit: { requests: 1000, window_seconds: 60 },
        },
      ],
      store: { path: 'shared.sqlite' },
      sync: { query_sets: [101], backfill_runs: 1 },
      smtp: { url: smtp.url, from: 'reports@example.com' },
      reports: [
        { name: 'on-publish', query_sets: [101], trigger: 'new_run', email: { to: ['ceo@example.com'] } },
      ],
    },
    tmp.dir,
  );
  // Rendering is covered elsewhere; here two Chromiums would only slow the race down.
  daemons = await Promise.all([
    startDaemon({ config, renderer: stubRenderer(tmp.dir), pollMs: 200 }),
    startDaemon({ config, renderer: stubRenderer(tmp.dir), pollMs: 200 }),
  ]);
});

afterAll(async () => {
  await Promise.all(daemons.map((d) => d.close()));
  await smtp?.close();
  await sandbox?.close();
  tmp?.cleanup();
});

describe('two daemons on one store', () => {
  it('send one message for a newly published run', async () => {
    await Promise.all(daemons.map((d) => d.syncNow()));
    const run = sandbox.publishRun(101);
    await Promise.all(daemons.map((d) => d.syncNow()));
    await smtp.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // give a duplicate every chance
    expect(smtp.messages).toHaveLength(1);
    expect((await listDeliveries(daemons[0]!.store)).map((d) => [d.runId, d.state, d.attempts])).toEqual([
      [run.id, 'sent', 1],
    ]);
  });

  it('stop cleanly while a sync pass is in flight', async () => {
    const pass = daemons[0]!.syncNow();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await Promise.all(daemons.map((d) => d.close()));
    await pass;
    const store = await openStore(join(tmp.dir, 'shared.sqlite'));
    const running = (await listSyncRuns(store)).filter((r) => r.outcome === 'running');
    await store.close();
    expect(running).toEqual([]);
  });
});
