import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listDeliveries } from '../../src/outbox/reads.js';
import { openStore } from '../../src/store/db.js';
import { type DeliveryCliEnv, startDeliveryCliEnv } from './cli-env.js';

/** `reportd deliver --eml FILE` over the built CLI: the email a delivery would send, as a file, nothing queued. */

let env: DeliveryCliEnv;
let dir: string;
let withSmtp: string;
let deadSmtp: string;
const reportd = (config: string, ...args: string[]) => env.reportd(config, ...args);

async function deliveries() {
  const store = await openStore(join(dir, 'reportd.sqlite'));
  try {
    return await listDeliveries(store);
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  env = await startDeliveryCliEnv();
  dir = env.dir;
  const common = `${env.accountsYaml}store: { path: ${join(dir, 'reportd.sqlite')} }
sync: { query_sets: [101, 102], backfill_runs: 1 }
reports:
  - name: weekly
    query_sets: [102]
    formats: [pdf]
    schedule: { cron: "0 8 * * 1", timezone: Europe/Berlin }
    email: { to: [ceo@example.com], subject: "Weekly — {{brand}} — {{run}}" }
  - name: both
    query_sets: [101, 102]
    mode: per_set
    schedule: { cron: "0 8 * * 1", timezone: Europe/Berlin }
    email: { to: [cmo@example.com], subject: "{{query_set}} — {{run}}" }
log: { level: warn }
`;
  withSmtp = env.writeConfig(
    'reportd.yaml',
    `${common}smtp: { url: "${env.smtp.url}", from: "Reports <reports@example.com>" }\n`,
  );
  // The config needs smtp once reports exist; this one points at a port where nothing listens.
  deadSmtp = env.writeConfig(
    'dead-smtp.yaml',
    `${common}smtp: { url: "smtp://127.0.0.1:1", from: "Reports <reports@example.com>" }\n`,
  );
});

afterAll(() => env?.close());

describe('reportd deliver --eml', () => {
  it('says in one line what is missing: an unknown report, nothing stored yet', async () => {
    const unknown = await reportd(withSmtp, 'deliver', '--report', 'monthly', '--eml', 'x.eml');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      `reportd: no report named "monthly" in ${withSmtp} (reports: weekly, both)\n`,
    );

    const early = await reportd(withSmtp, 'deliver', '--report', 'weekly', '--eml', 'x.eml');
    expect(early.code).toBe(2);
    expect(early.stderr).toMatch(
      /^reportd: no complete snapshot of report "weekly"'s query sets is stored \(run `reportd sync` first\)\n$/,
    );

    const both = await reportd(withSmtp, 'deliver', '--report', 'weekly', '--eml', 'x.eml', '--force');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--eml.*cannot be used with.*--force/);
  });

  it('writes the email with its PDF to the file, sends nothing and queues nothing', async () => {
    expect((await reportd(withSmtp, 'sync')).code).toBe(0);

    const preview = await reportd(withSmtp, 'deliver', '--report', 'weekly', '--eml', 'preview/weekly.eml');
    expect(preview.stderr).toBe('');
    expect(preview.code).toBe(0);
    const file = join(dir, 'preview', 'weekly.eml');
    expect(preview.stdout).toBe(`${file}\n`);

    const mail = await simpleParser(readFileSync(file));
    expect(mail.subject).toMatch(/^Weekly — Northwind Coffee — \S/);
    expect(mail.to).toMatchObject({ text: 'ceo@example.com' });
    expect(mail.from?.value[0]?.address).toBe('reports@example.com');
    expect(mail.messageId).toMatch(/@reportd>$/);
    expect(mail.attachments.map((a) => a.contentType)).toEqual(['application/pdf']);
    expect(mail.attachments[0]!.content.subarray(0, 5).toString()).toBe('%PDF-');
    expect(mail.text).toBeTruthy();

    // Nothing reached SMTP and the outbox is untouched, through the CLI and in the store itself.
    expect(env.smtp.messages).toHaveLength(0);
    const history = JSON.parse((await reportd(withSmtp, 'history', '--json')).stdout);
    expect(history.deliveries).toEqual([]);
    expect(await deliveries()).toEqual([]);

    // No SMTP server is needed: with nothing listening the preview works all the same.
    const bare = await reportd(deadSmtp, 'deliver', '--report', 'weekly', '--eml', join(dir, 'bare.eml'));
    expect(bare.code).toBe(0);
    expect(bare.stdout).toBe(`${join(dir, 'bare.eml')}\n`);
    const bareMail = await simpleParser(readFileSync(join(dir, 'bare.eml')));
    expect(bareMail.attachments.map((a) => a.contentType)).toEqual(['application/pdf']);
    expect(await deliveries()).toEqual([]);

    // A report over several sets: one file per set, named after it.
    const several = await reportd(withSmtp, 'deliver', '--report', 'both', '--eml', 'preview/both.eml');
    expect(several.code).toBe(0);
    expect(several.stdout).toBe(
      `${join(dir, 'preview', 'both-101.eml')}\n${join(dir, 'preview', 'both-102.eml')}\n`,
    );
    for (const set of [101, 102]) {
      const each = await simpleParser(readFileSync(join(dir, 'preview', `both-${set}.eml`)));
      expect(each.to).toMatchObject({ text: 'cmo@example.com' });
      expect(each.attachments.map((a) => a.contentType)).toEqual(['application/pdf']);
    }
    expect(await deliveries()).toEqual([]);

    // A preview is not a delivery: the real one still goes out afterwards.
    const real = await reportd(withSmtp, 'deliver', '--report', 'weekly');
    expect(real.code).toBe(0);
    expect(real.stdout).toMatch(/^sent: report weekly, query set 102/);
    expect(env.smtp.messages).toHaveLength(1);
    expect(env.smtp.messages[0]!.subject).toBe(mail.subject);
    expect(await deliveries()).toHaveLength(1);
  }, 300_000);
});
