import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryCliEnv, startDeliveryCliEnv } from './cli-env.js';

/** `reportd deliver` and `reportd history` as a user runs them: the built CLI in a child process. */
let env: DeliveryCliEnv;
let config: string;
const reportd = (...args: string[]) => env.reportd(config, ...args);

beforeAll(async () => {
  env = await startDeliveryCliEnv();
  config = env.writeConfig(
    'reportd.yaml',
    `${env.accountsYaml}sync: { query_sets: [102], backfill_runs: 1 }
smtp: { url: "${env.smtp.url}", from: "Reports <reports@example.com>" }
reports:
  - name: weekly
    query_sets: [102]
    formats: [pdf, xlsx]
    schedule: { cron: "0 8 * * 1", timezone: Europe/Berlin }
    email: { to: [ceo@example.com], subject: "Weekly — {{brand}} — {{run}}" }
log: { level: warn }
`,
  );
});

afterAll(() => env?.close());

describe('reportd deliver / history', () => {
  it('says what is missing before the first sync, then sends once, skips a repeat, resends with --force', async () => {
    const unknown = await reportd('deliver', '--report', 'monthly');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`reportd: no report named "monthly" in ${config} (reports: weekly)\n`);

    const early = await reportd('deliver', '--report', 'weekly');
    expect(early.code).toBe(2);
    expect(early.stderr).toMatch(/no complete snapshot of report "weekly"'s query sets is stored/);

    expect((await reportd('sync')).code).toBe(0);
    const first = await reportd('deliver', '--report', 'weekly');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^sent: report weekly, query set 102, run \d+ to ceo@example\.com/);
    expect(env.smtp.messages).toHaveLength(1);
    expect(env.smtp.messages[0]!.attachments.map((a) => a.filename?.split('.').pop())).toEqual([
      'pdf',
      'xlsx',
    ]);

    const again = await reportd('deliver', '--report', 'weekly');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^already delivered: report weekly, query set 102, run \d+ .*use --force/);
    expect(env.smtp.messages).toHaveLength(1);

    const forced = await reportd('deliver', '--report', 'weekly', '--force');
    expect(forced.code).toBe(0);
    expect(env.smtp.messages).toHaveLength(2);
    expect(env.smtp.messages[1]!.messageId).not.toBe(env.smtp.messages[0]!.messageId);

    const history = JSON.parse((await reportd('history', '--json')).stdout);
    expect(
      history.deliveries.map((d: { state: string; generation: number }) => [d.state, d.generation]),
    ).toEqual([
      ['sent', 1],
      ['sent', 0],
    ]);
    expect(history.syncs[0].outcome).toBe('ok');
    // The JSON field names are a documented contract for scripts: they must not follow renames of
    // the store's domain types (syncs kept the table's snake_case names, deliveries camelCase).
    const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(history.syncs[0]).toEqual({
      id: expect.any(Number),
      started_at: iso,
      finished_at: iso,
      outcome: 'ok',
      requests: expect.any(Number),
      metric_requests: expect.any(Number),
      snapshots_completed: 1,
      error: null,
    });
    expect(Object.keys(history.deliveries[0]).sort()).toEqual(
      [
        'id',
        'kind',
        'report',
        'destination',
        'account',
        'querySetId',
        'runId',
        'generation',
        'state',
        'attempts',
        'lastError',
        'messageId',
        'createdAt',
        'updatedAt',
        'sentAt',
        'recipients',
      ].sort(),
    );
    const table = (await reportd('history')).stdout;
    expect(table).toMatch(/^Sync passes \(newest first\)\n {2}\S+ {2}ok /);
    expect(table).toMatch(/\n {2}\S+ {2}sent +weekly {2}set 102 {2}run \d+ \(resend 1\) {2}attempts 1\n/);
  }, 300_000);
});
