import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { openStore } from '../../src/store/db.js';
import type { Store } from '../../src/store/sql.js';
import { runSync } from '../../src/sync/sync.js';
import {
  type DaemonChild,
  SYNC_SETTINGS,
  sandboxAccount,
  spawnDaemon,
  stopDaemon,
  until,
} from '../daemon/daemon-process-helpers.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { daemonConfig } from '../helpers/daemon-config.js';

/**
 * "The table is re-read on SIGHUP like the config": a real `reportd daemon` whose config file never
 * changes, only the CSV beside it. After an edit of the table and SIGHUP the next run goes to the new
 * reader; after an edit that breaks a row and SIGHUP, one line refuses it (file and line named) and
 * the next run still goes to the reader of the last valid table.
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

async function newRun() {
  sandbox.publishRun(101);
  expect(
    (await runSync({ store, accounts: [sandboxAccount(sandbox)], settings: SYNC_SETTINGS })).errors,
  ).toEqual([]);
}

const table = (reader: string) =>
  writeFileSync(join(tmp.dir, 'readers.csv'), `email,query_sets\n${reader},101\n`);
const readers = () => smtp.messages.map((m) => (Array.isArray(m.to) ? m.to[0] : m.to)?.text);

describe('a recipient table and SIGHUP', () => {
  it('an edited table takes effect at the next slot; a broken one is refused in one line and the last valid one kept', async () => {
    const file = join(tmp.dir, 'reportd.yaml');
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
          '    formats: [xlsx]',
          '    schedule: { cron: "*/5 * * * * *", timezone: UTC }',
          '    recipients: readers.csv',
          '',
        ].join('\n'),
    );
    table('first@client.example');
    await newRun();
    daemon = spawnDaemon(file);
    const logs = () => daemon!.logs;
    await smtp.waitFor(1, 60_000);
    expect(readers()).toEqual(['first@client.example']);

    table('second@client.example');
    daemon.child.kill('SIGHUP');
    await until(() => /config reloaded/.test(logs()), 'the reload', logs);
    await newRun();
    await smtp.waitFor(2, 60_000);
    expect(readers()).toEqual(['first@client.example', 'second@client.example']);

    table('not an address');
    daemon.child.kill('SIGHUP');
    await until(() => /config reload refused/.test(logs()), 'the refusal', logs);
    const refusal = logs()
      .split('\n')
      .filter((line) => /config reload refused/.test(line));
    expect(refusal).toHaveLength(1);
    expect(refusal[0]).toMatch(/readers\.csv line 2/);
    expect(logs()).not.toMatch(/\n\s+at /);
    await newRun();
    await smtp.waitFor(3, 60_000);
    expect(readers()).toEqual(['first@client.example', 'second@client.example', 'second@client.example']);
    expect(await stopDaemon(daemon)).toBe(0);
  }, 180_000);
});
