import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { runCli } from '../helpers/cli.js';

/**
 * A cron install — `reportd sync` then `reportd deliver --pending`, no daemon — gets the daemon's
 * semantics (daemon/after-pass.ts): `sync` queues the `trigger: new_run` reports for runs it stored and
 * the failure notices of the incidents its pass opens or clears (here a refused credential; the count
 * of `after_failed_syncs` across processes is test/notify/failed-syncs.test.ts's), and `deliver
 * --pending` sends both. The sandbox over HTTP, a real SMTP server, the built CLI.
 */
let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let smtp: TestSmtp;
let good: string;
let broken: string;

function writeConfig(name: string, secret: string): string {
  const file = join(tmp.dir, name);
  writeFileSync(
    file,
    `accounts:
  - { name: acme, base_url: "${sandbox.baseUrl}", api_key: ${sandbox.apiKey}, api_secret: ${secret}, rate_limit: { requests: 100000 } }
store: { path: ./store.sqlite }
sync: { query_sets: [102], backfill_runs: 1 }
smtp: { url: "${smtp.url}", from: "reportd <reports@example.com>" }
notify_on_failure: { email: [ops@example.com], after_failed_syncs: 2 }
reports:
  - name: on-new-run
    query_sets: [102]
    formats: [xlsx]
    trigger: new_run
    email: { to: [cmo@example.com], subject: "New run {{run}}" }
log: { level: fatal }
`,
  );
  return file;
}

beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox({ rate: { requests: 100_000, windowMs: 60_000 } });
  smtp = await startSmtp();
  good = writeConfig('reportd.yaml', sandbox.apiSecret);
  // The same store and account with a secret the API refuses (-4): an incident, hence a notice.
  broken = writeConfig('refused.yaml', 'not-the-secret');
});
afterAll(async () => {
  await sandbox?.close();
  await smtp?.close();
  tmp?.cleanup();
});

const reportd = (config: string, ...args: string[]) =>
  runCli([...args, '--config', config, ...(args[0] === 'sync' ? ['--no-progress'] : [])], { cwd: tmp.dir });

describe('a cron install (reportd sync + reportd deliver --pending)', () => {
  it('queues and sends the new_run report and the failure notice, as the daemon would', async () => {
    // The first pass only records what exists: no report about the past.
    const first = await reportd(good, 'sync');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).not.toMatch(/queued/);
    expect((await reportd(good, 'deliver', '--pending')).stdout).toContain('nothing due in the outbox');

    const run = sandbox.publishRun(102);
    const second = await reportd(good, 'sync');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(
      /^reports: 1 message\(s\) queued; `reportd deliver --pending` or the daemon sends them$/m,
    );
    const sent = await reportd(good, 'deliver', '--pending');
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain(`sent: report on-new-run, query set 102, run ${run.id}`);
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]!.subject).toBe(`New run ${run.display_name}`);

    // A refused credential: the pass that meets it opens the incident and queues the notice.
    const refused = await reportd(broken, 'sync');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^failure notices: an incident opened or cleared; /m);
    const notice = await reportd(good, 'deliver', '--pending');
    expect(notice.code, notice.stderr).toBe(0);
    expect(notice.stdout).toContain('sent: 1 failure notice(s)');
    expect(smtp.messages).toHaveLength(2);
    expect(smtp.envelopes[1]).toEqual(['ops@example.com']);
    expect(smtp.messages[1]!.text).toMatch(/account acme: the API refused the credential \(-4\)/);
    // Still refused: the incident is open already, nothing more is queued.
    const again = await reportd(broken, 'sync');
    expect(again.code).toBe(1);
    expect(again.stdout).not.toMatch(/failure notices/);

    // A good pass clears it: the recovery notice goes out the same way; nothing is sent twice.
    const back = await reportd(good, 'sync');
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/^failure notices: an incident opened or cleared; /m);
    expect((await reportd(good, 'deliver', '--pending')).stdout).toContain('sent: 1 failure notice(s)');
    expect(smtp.messages).toHaveLength(3);
    expect((await reportd(good, 'deliver', '--pending')).stdout).toContain('nothing due in the outbox');
    expect(smtp.messages).toHaveLength(3);
  }, 240_000);
});
