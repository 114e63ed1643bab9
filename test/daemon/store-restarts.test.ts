import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { openStore } from '../../src/store/db.js';
import { jobSlotsOf } from '../../src/store/job-slots.js';
import type { Store } from '../../src/store/sql.js';
import { runSync } from '../../src/sync/sync.js';
import { startSmtp, type TestSmtp } from '../delivery/smtp-helpers.js';
import { daemonConfig } from '../helpers/daemon-config.js';
import { type PostgresCluster, startPostgresCluster } from '../helpers/postgres-cluster.js';
import {
  listeningUrl,
  SYNC_SETTINGS,
  sandboxAccount,
  spawnDaemon as spawnChild,
  until,
} from './daemon-process-helpers.js';

/**
 * Issue 25's first rows: `reportd daemon` processes on a PostgreSQL store whose server is restarted
 * (`pg_ctl restart -m fast`, then `-m immediate`) or stopped for a while under them. Each test has its
 * own cluster (the run's shared one must not be restarted under other files' tests), sandbox and SMTP
 * server, so the two run at once: the outage test spends two minutes waiting with the server down, and
 * nothing one test does to its server, runs or mailbox reaches the other's. The report fires every 5
 * seconds (croner's 6-field cron) rather than every minute, to keep the wall time short; between
 * messages a run is published and synced into the store, so every new message is one new run: one
 * message per run, each run sent once, both daemons alive throughout.
 */
interface Peers {
  cluster: PostgresCluster;
  sandbox: Sandbox;
  smtp: TestSmtp;
  dir: string;
}
const started: Peers[] = [];
const stores: Store[] = [];
const children: ChildProcess[] = [];

async function startPeers(): Promise<Peers> {
  // PostgreSQL's default durability: with synchronous_commit off, `-m immediate` may take a commit the
  // daemons were told was kept (a slot's claim, a row marked sent), which no production server does.
  const cluster = await startPostgresCluster({ durableCommits: true });
  const peers: Peers = {
    cluster,
    sandbox: await startSandbox({ rate: { requests: 1000, windowMs: 60_000 } }),
    smtp: await startSmtp(),
    dir: mkdtempSync(join(tmpdir(), 'reportd-restarts-')),
  };
  started.push(peers);
  return peers;
}

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const store of stores) await store.close().catch(() => {});
  for (const { cluster, sandbox, smtp, dir } of started) {
    await smtp.close();
    await sandbox.close();
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

function spawnDaemon(config: string) {
  return spawnChild(config, children);
}

function writeConfig({ cluster, sandbox, smtp, dir }: Peers, name: string, settings: string[] = []): string {
  const url = `postgres://postgres@127.0.0.1:${cluster.port}/${name}`;
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    daemonConfig({
      sandbox,
      store: `store: { url: "${url}" }`,
      smtpUrl: smtp.url,
      outDir: join(dir, `out-${name}`),
      rateLimit: { requests: 1000, window_seconds: 60 },
      settings,
    }),
  );
  return file;
}

async function createDatabase({ cluster }: Peers, name: string): Promise<Store> {
  const admin = await openStore(cluster.adminUrl, { migrations: [] });
  await admin.exec(`CREATE DATABASE ${name}`);
  await admin.close();
  const store = await openStore(`postgres://postgres@127.0.0.1:${cluster.port}/${name}`);
  stores.push(store);
  return store;
}

/** Publishes a run and stores it, retrying while the server is still coming back. */
async function publishAndSync({ sandbox }: Peers, target: Store, logs: () => string) {
  sandbox.publishRun(101);
  await until(
    async () =>
      (await runSync({ store: target, accounts: [sandboxAccount(sandbox)], settings: SYNC_SETTINGS })).errors
        .length === 0,
    'the sync of a new run',
    logs,
  );
}

describe.concurrent('daemons on a PostgreSQL server that restarts', () => {
  it('two daemons survive pg_ctl restart -m fast and -m immediate and keep sending one message per run', async ({
    expect,
  }) => {
    const peers = await startPeers();
    const { cluster, smtp } = peers;
    const store = await createDatabase(peers, 'restarts');
    const config = writeConfig(peers, 'restarts');
    await publishAndSync(peers, store, () => '');
    const daemons = [spawnDaemon(config), spawnDaemon(config)];
    const logs = () => daemons.map((d) => d.logs).join('\n');
    await until(() => daemons.every((d) => /daemon started/.test(d.logs)), 'both daemons to start', logs);
    await smtp.waitFor(1, 60_000);

    for (const [index, mode] of (['fast', 'immediate'] as const).entries()) {
      const restartedAt = Date.now();
      // In the background: this process's sandbox and SMTP servers (the other test's too) keep answering.
      await cluster.restartInBackground(mode);
      // Two slots after the restart, both daemons still up, and the slots claimed and run again.
      await until(
        async () =>
          (await jobSlotsOf(store, 'report:fivesecondly')).filter(
            (row) => row.slot_at > restartedAt && row.outcome === 'ok',
          ).length >= 2,
        `slots after pg_ctl restart -m ${mode}`,
        logs,
      );
      expect(daemons.map((d) => d.child.exitCode)).toEqual([null, null]);
      await publishAndSync(peers, store, logs);
      await smtp.waitFor(index + 2, 60_000);
    }
    // Every chance for a duplicate: a few more slots after the last message.
    const last = Date.now();
    await until(
      async () =>
        (await jobSlotsOf(store, 'report:fivesecondly')).filter((row) => row.slot_at > last).length >= 2,
      'two more slots',
      logs,
    );
    expect(smtp.messages).toHaveLength(3);
    expect(new Set(smtp.messages.map((m) => m.messageId)).size).toBe(3);
    expect(daemons.map((d) => d.child.exitCode)).toEqual([null, null]);
    // Each slot claimed once (the table's key), by one of the two, and every one after the first
    // message finished: none left hanging by the restarts.
    const slots = await jobSlotsOf(store, 'report:fivesecondly');
    expect(slots.filter((row) => row.finished_at === null && row.slot_at < last)).toEqual([]);
    // A restart is a few warnings, not a stack trace or a stopped loop.
    expect(logs()).not.toMatch(/unhandled|scheduler loop stopped|\n\s+at /);
    expect(logs()).toMatch(/store connection lost; reconnecting at the next query|job loop failed; retrying/);
    await Promise.all(
      daemons.map(
        (d) =>
          new Promise<void>((resolve) => {
            d.child.once('exit', () => resolve());
            d.child.kill('SIGTERM');
          }),
      ),
    );
  }, 240_000);

  it('PostgreSQL down for 2 minutes: /readyz 503 then 200, one notice each way, the slots fire again within one interval', async ({
    expect,
  }) => {
    const peers = await startPeers();
    const { cluster, smtp } = peers;
    const store = await createDatabase(peers, 'outage');
    const config = writeConfig(peers, 'outage', [
      'http: { port: 0, host: 127.0.0.1 }',
      // Six seconds instead of the default five minutes, to keep the test short.
      'notify_on_failure: { email: [ops@example.com], store_unreachable_after: 0.1 }',
    ]);
    await publishAndSync(peers, store, () => '');
    const before = smtp.messages.length;
    const daemon = spawnDaemon(config);
    const logs = () => daemon.logs;
    await until(() => listeningUrl(daemon) !== undefined, 'the daemon to listen', logs);
    const url = listeningUrl(daemon)!;
    const ready = async () => {
      const answer = await fetch(`${url}/readyz`);
      return { status: answer.status, text: await answer.text() };
    };
    await until(async () => (await ready()).status === 200, '/readyz 200 before the outage', logs);
    await smtp.waitFor(before + 1, 60_000);
    const notices = () => smtp.messages.filter((m) => /store is unreachable/.test(m.subject ?? ''));

    cluster.down('fast');
    const downAt = Date.now();
    let notReady = '';
    await until(
      async () => {
        const answer = await ready();
        if (answer.status === 503) notReady = answer.text;
        return answer.status === 503;
      },
      '/readyz 503 with the store down',
      logs,
    );
    expect(notReady).toMatch(/^not ready: (store cannot be written|scheduler role)/);
    // Past the threshold (6 s): one notice, and no second one however long the outage lasts. Two
    // minutes, as the operator tried: long enough for every backoff to reach its ceiling.
    await until(() => notices().length >= 1, 'the store-unreachable notice', logs, 30_000);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 120_000 - (Date.now() - downAt))));
    expect(notices().map((m) => m.subject)).toEqual(['[reportd] the store is unreachable']);
    expect(daemon.child.exitCode).toBeNull();

    cluster.up();
    const upAt = Date.now();
    await until(async () => (await ready()).status === 200, '/readyz 200 after the outage', logs);
    await until(() => notices().length >= 2, 'the resolved notice', logs, 30_000);
    expect(notices().map((m) => m.subject)).toEqual([
      '[reportd] the store is unreachable',
      '[reportd] resolved: the store is unreachable',
    ]);
    await until(
      async () =>
        (await jobSlotsOf(store, 'report:fivesecondly')).some(
          (row) => row.slot_at > upAt && row.outcome === 'ok',
        ),
      'a slot after the outage',
      logs,
    );
    const firstAfter = (await jobSlotsOf(store, 'report:fivesecondly'))
      .filter((row) => row.slot_at > upAt && row.outcome === 'ok')
      .map((row) => row.slot_at)
      .sort((a, b) => a - b)[0]!;
    // The first slot after the server came back ran: the loop tried it at its time, not after a backoff.
    expect(firstAfter - upAt).toBeLessThanOrEqual(5_000);
    expect(logs()).not.toMatch(/scheduler loop stopped|\n\s+at /);
    await new Promise<void>((resolve) => {
      daemon.child.once('exit', () => resolve());
      daemon.child.kill('SIGTERM');
    });
  }, 300_000);
});
