import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listDeliveries } from '../../src/outbox/reads.js';
import { openStore } from '../../src/store/db.js';
import { type DeliveryCliEnv, startDeliveryCliEnv } from './cli-env.js';

/**
 * An SMTP server's reply is untrusted text and may echo what it was sent. Here it answers the send
 * with a temporary failure quoting the SMTP password: the password must reach neither the outbox row
 * (`deliveries.last_error`, kept for the retry and for `history`) nor any output.
 */
const PASSWORD = 'Smtp-Pa55word-4711';

let env: DeliveryCliEnv;
let config: string;
let storePath: string;
const reportd = (...args: string[]) => env.reportd(config, ...args);

beforeAll(async () => {
  env = await startDeliveryCliEnv({
    user: 'reports',
    password: PASSWORD,
    failText: `Mailbox busy, try again (your AUTH was reports/${PASSWORD})`,
  });
  storePath = join(env.dir, 'reportd.sqlite');
  config = env.writeConfig(
    'reportd.yaml',
    `${env.accountsYaml}store: { path: ${storePath} }
sync: { query_sets: [102], backfill_runs: 1 }
smtp: { host: 127.0.0.1, port: ${env.smtp.port}, user: reports, password: ${PASSWORD}, from: "Reports <reports@example.com>" }
reports:
  - name: weekly
    query_sets: [102]
    formats: [xlsx]
    schedule: { cron: "0 8 * * 1", timezone: Europe/Berlin }
    email: { to: [ceo@example.com], subject: "Weekly" }
log: { level: warn }
`,
  );
});

afterAll(() => env?.close());

describe('an SMTP reply that echoes the password', () => {
  it('is stored and shown without it', async () => {
    expect((await reportd('sync')).code).toBe(0);
    env.smtp.failNext = 1;
    const deliver = await reportd('deliver', '--report', 'weekly');
    expect(deliver.code).not.toBe(0);
    expect(deliver.stderr).toMatch(/SMTP server deferred \(451\): .*reports\/\[redacted\]\)/);
    expect(deliver.stderr + deliver.stdout).not.toContain(PASSWORD);

    const store = await openStore(storePath, { mustExist: true });
    try {
      const [row] = await listDeliveries(store, 10);
      expect(row).toMatchObject({ state: 'pending', attempts: 1 });
      expect(row!.lastError).toMatch(
        /^SMTP server deferred \(451\): .*your AUTH was reports\/\[redacted\]\)$/,
      );
      expect(row!.lastError).not.toContain(PASSWORD);
    } finally {
      await store.close();
    }

    const history = await reportd('history', '--json');
    expect(history.code).toBe(0);
    expect(history.stdout).not.toContain(PASSWORD);
    expect(JSON.parse(history.stdout).deliveries[0].lastError).toMatch(/reports\/\[redacted\]\)$/);
    const table = await reportd('history');
    expect(table.stdout).toMatch(/pending +weekly .*attempts 1 {2}SMTP server deferred \(451\)/);
    expect(table.stdout).not.toContain(PASSWORD);
  }, 300_000);
});
