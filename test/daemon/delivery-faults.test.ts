import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueDelivery } from '../../src/outbox/enqueue.js';
import { listDeliveries } from '../../src/outbox/reads.js';
import { listRecipients } from '../../src/outbox/recipients.js';
import type { Delivery } from '../../src/outbox/row.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { openStore } from '../../src/store/db.js';
import type { Store } from '../../src/store/sql.js';
import { runSync } from '../../src/sync/sync.js';
import { startSmtp, type TestSmtp } from '../delivery/smtp-helpers.js';
import { daemonConfig } from '../helpers/daemon-config.js';
import { type PostgresCluster, startPostgresCluster } from '../helpers/postgres-cluster.js';
import {
  type DaemonChild,
  SYNC_SETTINGS,
  sandboxAccount,
  spawnDaemon,
  stopDaemon,
  until,
} from './daemon-process-helpers.js';

/**
 * Issue 25's loop: ten times, a delivery is at the SMTP server (the message stored, the server's
 * answer to DATA held back) when (a) the daemon is killed with SIGKILL and a new one started, and
 * (b) PostgreSQL is restarted with `pg_ctl restart` (fast, or immediate on every third turn) while
 * the daemon lives on. The receiver then holds, per delivery: after the kill, the one extra copy
 * with the same Message-ID docs/channels.md's table documents (the answer was lost with the
 * process); after the restart, whose answer is held past the lease, exactly one. Never a third, and the row (`reportd history`) says sent
 * with the one recipient accepted. The cluster is this file's own (it is restarted under the
 * daemon); short leases and a 1 s outbox poll keep the loop's wall time down.
 */
const TURNS = 10;

let cluster: PostgresCluster;
let sandbox: Sandbox;
let smtp: TestSmtp;
let dir: string;
let store: Store | undefined;
const children: ChildProcess[] = [];
/** Answers to DATA held back, in order; `onHeld` is told when one arrives. */
const answers: (() => void)[] = [];

beforeAll(async () => {
  // PostgreSQL's default durability: `-m immediate` must not take commits the daemon was told were
  // kept (with synchronous_commit off, the recipients it had just written went, and the row failed).
  cluster = await startPostgresCluster({ durableCommits: true });
  sandbox = await startSandbox({ rate: { requests: 1000, windowMs: 60_000 } });
  smtp = await startSmtp({
    afterStore: () => new Promise<void>((resolve) => answers.push(resolve)),
  });
  dir = mkdtempSync(join(tmpdir(), 'reportd-delivery-faults-'));
});

afterAll(async () => {
  for (const answer of answers.splice(0)) answer();
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await store?.close().catch(() => {});
  await smtp?.close();
  await sandbox?.close();
  cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function writeConfig(url: string): string {
  const file = join(dir, 'reportd.yaml');
  writeFileSync(
    file,
    daemonConfig({
      sandbox,
      store: `store: { url: "${url}" }`,
      smtpUrl: smtp.url,
      outDir: join(dir, 'out'),
      rateLimit: { requests: 1000, window_seconds: 60 },
      // Only the outbox worker: the test enqueues each delivery itself.
      settings: ['daemon: { roles: [worker], poll_seconds: 0.5 }', 'delivery: { lease_seconds: 3 }'],
      // The receiver counts messages by Message-ID and never opens the file: HTML, the cheapest render
      // (each of the eleven daemons would load ExcelJS for a workbook).
      report: { name: 'weekly', cron: '0 0 1 1 *', formats: ['html'] },
    }),
  );
  return file;
}

/** Reads retried while the server is coming back. */
async function settled<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (attempt >= 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function rowOf(id: number): Promise<Delivery> {
  const rows = await settled(() => listDeliveries(store!, 100));
  return rows.find((row) => row.id === id)!;
}

describe('kill -9 and pg_ctl restart while a delivery is at the SMTP server, ten times', () => {
  it('one message per delivery (the one documented same-Message-ID copy after a kill), never a third; history agrees', async () => {
    const admin = await openStore(cluster.adminUrl, { migrations: [] });
    await admin.exec('CREATE DATABASE faults');
    await admin.close();
    const url = `postgres://postgres@127.0.0.1:${cluster.port}/faults`;
    store = await openStore(url);
    const run = sandbox.publishRun(101);
    const synced = await runSync({ store, accounts: [sandboxAccount(sandbox)], settings: SYNC_SETTINGS });
    expect(synced.errors).toEqual([]);
    const config = writeConfig(url);
    let daemon: DaemonChild = spawnDaemon(config, children);
    const logs = () => daemon.logs;
    const key = { report: 'weekly', querySetId: 101, runId: run.id, account: 'acme' };
    /** Per delivery: its row id, what was done to it, and how many copies the receiver may hold. */
    const done: { id: number; fault: string; copies: number }[] = [];

    /** Enqueues the next generation and waits until its message is at the server, answer held. */
    const atTheServer = async () => {
      const before = smtp.messages.length;
      const { delivery } = await settled(() =>
        enqueueDelivery(store!, key, Date.now(), { force: done.length > 0 }),
      );
      await until(() => smtp.messages.length > before, `delivery ${delivery.id} at the server`, logs);
      expect(smtp.messages.at(-1)!.messageId).toBe(delivery.messageId);
      return delivery;
    };
    const release = () => {
      for (const answer of answers.splice(0)) answer();
    };
    // On a time-out, the row as it stood says why (its state, attempts, last error).
    const rowLogs = (id: number) => () => `${JSON.stringify(seen.get(id))}\n${logs()}`;
    const seen = new Map<number, Delivery>();
    const isSent = async (id: number) => {
      const row = await rowOf(id);
      seen.set(id, row);
      return row.state === 'sent';
    };

    for (let turn = 0; turn < TURNS; turn++) {
      // (a) SIGKILL mid-DATA, a new daemon: it takes the row over once the lease runs out.
      const killed = await atTheServer();
      daemon.child.kill('SIGKILL');
      await new Promise((resolve) => daemon.child.once('exit', resolve));
      release();
      daemon = spawnDaemon(config, children);
      // Its resend is held too: released as it arrives, until the row says sent.
      await until(
        async () => {
          release();
          return await isSent(killed.id);
        },
        `delivery ${killed.id} sent after the kill`,
        rowLogs(killed.id),
        90_000,
      );
      done.push({ id: killed.id, fault: 'kill -9', copies: 2 });

      // (b) pg_ctl restart mid-DATA, the daemon living on.
      const mode = turn % 3 === 2 ? 'immediate' : 'fast';
      const restarted = await atTheServer();
      const leaseAtRestart = (await rowOf(restarted.id)).leaseUntil!;
      cluster.restart(mode);
      // The answer held past the lease the row had when the server went: only the heartbeat, renewing
      // through the restart, keeps the row from being taken over and sent a second time.
      await until(
        async () => Date.now() > leaseAtRestart && (await rowOf(restarted.id)).leaseUntil! > leaseAtRestart,
        `delivery ${restarted.id}'s lease renewed after pg_ctl restart -m ${mode}`,
        logs,
      );
      release();
      await until(
        () => isSent(restarted.id),
        `delivery ${restarted.id} sent after the restart`,
        rowLogs(restarted.id),
        90_000,
      );
      expect(daemon.child.exitCode).toBeNull();
      done.push({ id: restarted.id, fault: `pg_ctl restart -m ${mode}`, copies: 1 });
    }

    // A few polls more for any late resend, then what the receiver holds per delivery.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    release();
    await stopDaemon(daemon);
    for (const { id, fault, copies } of done) {
      const row = await rowOf(id);
      const got = smtp.messages.filter((m) => m.messageId === row.messageId);
      expect({ id, fault, copies: got.length }).toEqual({ id, fault, copies });
      expect(row).toMatchObject({ state: 'sent', lastError: null });
      const recipients = await listRecipients(store, id);
      expect(recipients.map((r) => [r.recipient, r.state])).toEqual([['ceo@example.com', 'accepted']]);
    }
    expect(smtp.messages).toHaveLength(done.reduce((sum, d) => sum + d.copies, 0));
    expect(logs()).not.toMatch(/unhandled|\n\s+at /);
  }, 300_000);
});
