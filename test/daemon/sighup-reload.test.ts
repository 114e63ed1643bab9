import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { openStore } from '../../src/store/db.js';
import { listInstances } from '../../src/store/instances.js';
import type { Store } from '../../src/store/sql.js';
import { runSync } from '../../src/sync/sync.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { daemonConfig } from '../helpers/daemon-config.js';
import {
  type DaemonChild,
  SYNC_SETTINGS,
  sandboxAccount,
  spawnDaemon,
  stopDaemon,
  until,
} from './daemon-process-helpers.js';

/**
 * Issue 25, "Config edited, then SIGHUP": a real `reportd daemon` on SQLite with a report every 5
 * seconds (a new message whenever a new run is stored). The recipients are edited and SIGHUP sent:
 * the next run goes to the new list; then an invalid edit and SIGHUP: one line refusing it, and the
 * next run still goes to the list of the last valid config. SIGTERM at the end: exit 0 and no
 * instance left live in the store.
 */
let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let smtp: TestSmtp;
let store: Store;
let daemon: DaemonChild | undefined;

beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox({ rate: { requests: 1000, windowMs: 60_000 } });
  smtp = await startSmtp();
  store = await openStore(join(tmp.dir, 'reportd.sqlite'));
});

afterAll(async () => {
  if (daemon?.child.exitCode === null) daemon.child.kill('SIGKILL');
  await store?.close();
  await smtp?.close();
  await sandbox?.close();
  tmp?.cleanup();
});

function config(recipient: string): string {
  return daemonConfig({
    sandbox,
    store: `store: { path: "${join(tmp.dir, 'reportd.sqlite')}" }`,
    smtpUrl: smtp.url,
    outDir: join(tmp.dir, 'out'),
    // Who receives each run is what is checked, never the file: HTML, the cheapest render.
    report: { to: recipient, formats: ['html'] },
  });
}

async function newRun() {
  sandbox.publishRun(101);
  expect(
    (await runSync({ store, accounts: [sandboxAccount(sandbox)], settings: SYNC_SETTINGS })).errors,
  ).toEqual([]);
}

/** Waits for the daemon to refuse a reload; the refusal is one line, with no stack trace. */
async function refusedOnce(logs: () => string): Promise<string[]> {
  await until(() => /config reload refused/.test(logs()), 'the refusal', logs);
  const refusal = logs()
    .split('\n')
    .filter((line) => /config reload refused/.test(line));
  expect(refusal).toHaveLength(1);
  expect(logs()).not.toMatch(/\n\s+at /);
  return refusal;
}

const recipients = () => smtp.messages.map((m) => (Array.isArray(m.to) ? m.to[0] : m.to)?.text);

describe('reportd daemon and SIGHUP', () => {
  it('a valid edit takes effect at the next slot; an invalid one is refused in one line and the old one kept', async () => {
    const file = join(tmp.dir, 'reportd.yaml');
    writeFileSync(file, config('first@example.com'));
    await newRun();
    daemon = spawnDaemon(file);
    const logs = () => daemon!.logs;
    await smtp.waitFor(1, 60_000);
    expect(recipients()).toEqual(['first@example.com']);

    writeFileSync(file, config('second@example.com'));
    daemon.child.kill('SIGHUP');
    await until(
      () => /config reloaded/.test(logs()) && /daemon started[\s\S]*daemon started/.test(logs()),
      'the reload',
      logs,
    );
    await newRun();
    await smtp.waitFor(2, 60_000);
    expect(recipients()).toEqual(['first@example.com', 'second@example.com']);

    // Invalid: a cron that does not parse. Refused in one line, the daemon keeps the last valid one.
    writeFileSync(file, config('third@example.com').replace('"*/5 * * * * *"', '"every now and then"'));
    daemon.child.kill('SIGHUP');
    const refusal = await refusedOnce(logs);
    expect(refusal[0]).toMatch(/reports\[0\]\.schedule\.cron/);
    expect(daemon.child.exitCode).toBeNull();
    await newRun();
    await smtp.waitFor(3, 60_000);
    expect(recipients()).toEqual(['first@example.com', 'second@example.com', 'second@example.com']);

    expect(await stopDaemon(daemon)).toBe(0);
    expect(logs()).toContain('daemon stopped');
    // Every instance this process registered (one per config it ran) is marked stopped.
    const instances = await listInstances(store, 0);
    expect(instances.length).toBeGreaterThanOrEqual(2);
    expect(instances.filter((i) => i.stopped_at === null)).toEqual([]);
  }, 180_000);

  it('SIGINT (Ctrl-C) is a way out too: exit 0, "daemon stopped", its instance marked stopped', async () => {
    const file = join(tmp.dir, 'reportd-int.yaml');
    writeFileSync(file, config('first@example.com'));
    daemon = spawnDaemon(file);
    const logs = () => daemon!.logs;
    await until(() => /daemon started/.test(logs()), 'the daemon to start', logs);
    const pid = daemon.child.pid;
    await until(
      async () => (await listInstances(store, 0)).some((i) => i.pid === pid && i.stopped_at === null),
      'its instance to be registered',
      logs,
    );
    const exited = new Promise<number | null>((resolve) => daemon!.child.once('exit', resolve));
    daemon.child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(logs()).toContain('daemon stopped');
    const mine = (await listInstances(store, 0)).filter((i) => i.pid === pid);
    expect(mine.length).toBeGreaterThanOrEqual(1);
    expect(mine.filter((i) => i.stopped_at === null)).toEqual([]);
  }, 120_000);
});

/**
 * "The table is re-read on SIGHUP like the config": the config file never changes, only the recipient
 * table beside it. After an edit and SIGHUP the next run goes to the new reader; after an edit that
 * breaks a row and SIGHUP, one line refuses it (file and line named) and the next run still goes to the
 * reader of the last valid table.
 */
describe('a recipient table and SIGHUP', () => {
  const table = (reader: string) =>
    writeFileSync(join(tmp.dir, 'readers.csv'), `email,query_sets\n${reader},101\n`);
  let before = 0;
  const readers = () => recipients().slice(before);
  it('an edited table takes effect at the next slot; a broken one is refused in one line and the last valid one kept', async () => {
    before = smtp.messages.length;
    const file = join(tmp.dir, 'reportd-table.yaml');
    writeFileSync(
      file,
      daemonConfig({
        sandbox,
        store: `store: { path: "${join(tmp.dir, 'reportd.sqlite')}" }`,
        smtpUrl: smtp.url,
        outDir: join(tmp.dir, 'out'),
        report: false,
      }) +
        [
          'reports:',
          '  - name: clients',
          '    formats: [html]',
          '    schedule: { cron: "*/5 * * * * *", timezone: UTC }',
          '    recipients: readers.csv',
          '',
        ].join('\n'),
    );
    table('first@client.example');
    await newRun();
    daemon = spawnDaemon(file);
    const logs = () => daemon!.logs;
    await smtp.waitFor(before + 1, 60_000);
    expect(readers()).toEqual(['first@client.example']);

    table('second@client.example');
    daemon.child.kill('SIGHUP');
    await until(() => /config reloaded/.test(logs()), 'the reload', logs);
    await newRun();
    await smtp.waitFor(before + 2, 60_000);
    expect(readers()).toEqual(['first@client.example', 'second@client.example']);

    table('not an address');
    daemon.child.kill('SIGHUP');
    const refusal = await refusedOnce(logs);
    expect(refusal[0]).toMatch(/readers\.csv line 2/);
    await newRun();
    await smtp.waitFor(before + 3, 60_000);
    expect(readers()).toEqual(['first@client.example', 'second@client.example', 'second@client.example']);
    expect(await stopDaemon(daemon)).toBe(0);
  }, 180_000);
});
