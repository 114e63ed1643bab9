import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listDeliveries } from '../../src/outbox/reads.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { jobSlotsOf } from '../../src/store/job-slots.js';
import { runSync } from '../../src/sync/sync.js';
import { startSmtp, type TestSmtp } from '../delivery/smtp-helpers.js';
import { runCli } from '../helpers/cli.js';
import { daemonConfig } from '../helpers/daemon-config.js';
import { type TempStore, tempStore } from '../sync/helpers/temp-store.js';
import {
  type DaemonChild,
  listeningUrl,
  SYNC_SETTINGS,
  sandboxAccount,
  spawnDaemon,
  stopDaemon,
  until,
} from './daemon-process-helpers.js';

/**
 * Issue 25 item 6, "two configs with the same report name and different recipients on one store":
 * two real `reportd daemon` processes on one store, each with its own config, the report every 5
 * seconds. Both say the report has two definitions (log, `reportd status`, `/readyz?verbose`), naming
 * the report and the instances and neither list; the slots fire but nothing is sent to either list.
 * Then the second config is edited to match the first and SIGHUP'd: exactly one message, to the
 * agreed list, and no more for the slots after it (the run was sent once).
 */
let temp: TempStore | undefined;
let sandbox: Sandbox | undefined;
let smtp: TestSmtp | undefined;
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await smtp?.close();
  await sandbox?.close();
  await temp?.cleanup();
});

function config(recipient: string): string {
  return daemonConfig({
    sandbox: sandbox!,
    store: temp!.configLine,
    smtpUrl: smtp!.url,
    outDir: join(temp!.dir, 'out'),
    settings: ['http: { port: 0, host: 127.0.0.1 }'],
    // Who receives the row is what is checked, never the file: HTML, the cheapest render.
    report: { to: recipient, formats: ['html'] },
  });
}

const conflictLine = /report \\?"fivesecondly\\?" has 2 different definitions/;

describe('two daemons with different definitions of one report', () => {
  it('both say so, nothing is sent until the configs agree, then exactly one message', async () => {
    temp = await tempStore();
    sandbox = await startSandbox({ rate: { requests: 1000, windowMs: 60_000 } });
    smtp = await startSmtp();
    const store = temp.store;
    const fileA = join(temp.dir, 'a.yaml');
    const fileB = join(temp.dir, 'b.yaml');
    writeFileSync(fileA, config('first@example.com'));
    writeFileSync(fileB, config('second@example.com'));

    // Both up before the store holds a run, so no slot has anything to send before they disagree.
    const a: DaemonChild = spawnDaemon(fileA, children);
    const b: DaemonChild = spawnDaemon(fileB, children);
    const logs = () => `--- a\n${a.logs}\n--- b\n${b.logs}`;
    await until(
      () => conflictLine.test(a.logs) && conflictLine.test(b.logs),
      'both to log the conflict',
      logs,
    );

    expect(
      (await runSync({ store, accounts: [sandboxAccount(sandbox)], settings: SYNC_SETTINGS })).errors,
    ).toEqual([]);
    // Slots fire and the row is there, waiting: several slots later still nothing sent.
    await until(
      async () => (await listDeliveries(store)).filter((d) => d.report === 'fivesecondly').length > 0,
      'the row',
      logs,
    );
    const finished = async () =>
      (await jobSlotsOf(store, 'report:fivesecondly')).filter((r) => r.finished_at !== null).length;
    const before = await finished();
    await until(async () => (await finished()) >= before + 2, 'two more slots', logs);
    expect(smtp.messages).toHaveLength(0);
    expect(
      (await listDeliveries(store)).filter((d) => d.report === 'fivesecondly').map((d) => d.state),
    ).toEqual(['pending']);
    // One line per change, not one per tick or per claim.
    expect(a.logs.split('\n').filter((line) => conflictLine.test(line))).toHaveLength(1);
    expect(b.logs.split('\n').filter((line) => conflictLine.test(line))).toHaveLength(1);

    // What ops see: the report and both instances named, neither list.
    const status = await runCli(['status', '--config', fileA]);
    expect(status.stdout).toMatch(/error: report fivesecondly has 2 different definitions/);
    const verbose = await (await fetch(`${listeningUrl(a)}/readyz?verbose`)).text();
    expect(verbose).toMatch(/report fivesecondly has 2 different definitions/);
    for (const text of [status.stdout, verbose, a.logs, b.logs]) {
      expect(text).not.toContain('first@example.com');
      expect(text).not.toContain('second@example.com');
    }
    const ids = [a, b].map((d) => /"instance":"([^"]+)".*daemon started/.exec(d.logs)?.[1]);
    for (const id of ids) {
      expect(id).toBeDefined();
      expect(status.stdout).toContain(id);
    }

    // B is brought in line with A and reloaded: the configs agree, the row goes out once.
    writeFileSync(fileB, config('first@example.com'));
    b.child.kill('SIGHUP');
    await smtp.waitFor(1, 60_000);
    await until(() => /has one definition again/.test(a.logs), 'A to see the agreement', logs);
    const after = await finished();
    await until(async () => (await finished()) >= after + 2, 'two more slots', logs);
    expect(smtp.messages).toHaveLength(1);
    const to = smtp.messages[0]!.to;
    expect((Array.isArray(to) ? to[0] : to)?.text).toBe('first@example.com');
    const status2 = await runCli(['status', '--config', fileA]);
    expect(status2.stdout).not.toMatch(/different definitions/);

    expect(await stopDaemon(a)).toBe(0);
    expect(await stopDaemon(b)).toBe(0);
  }, 240_000);
});
