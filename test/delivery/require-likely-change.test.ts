import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryCliEnv, startDeliveryCliEnv } from './cli-env.js';

/**
 * `require_likely_change: true`: a report goes out only for a run whose report has a likely change
 * (judged as the report judges its changes), and a quiet run is recorded in `history` as skipped,
 * with the reason, once. Over HTTP against the sandbox, with the built CLI and a real SMTP server.
 */

let env: DeliveryCliEnv;
let config: string;
const reportd = (...args: string[]) => env.reportd(config, ...args);

beforeAll(async () => {
  env = await startDeliveryCliEnv();
  config = env.writeConfig(
    'reportd.yaml',
    `${env.accountsYaml}sync: { query_sets: [101, 102], backfill_runs: 1 }
smtp: { url: "${env.smtp.url}", from: "Reports <reports@example.com>" }
reports:
  - name: when-it-matters
    query_sets: [101, 102]
    mode: per_set
    formats: [xlsx]
    require_likely_change: true
    schedule: { cron: "0 8 * * 1", timezone: UTC }
    email: { to: [cmo@example.com] }
log: { level: warn }
`,
  );
});

afterAll(() => env?.close());

describe('require_likely_change', () => {
  it('sends a run with a likely change, skips a quiet one and says why in history, once', async () => {
    expect((await reportd('sync')).code).toBe(0);
    // Set 101: a run like the last; set 102: gross presence falls 12 points on 600 answers.
    env.sandbox.publishRun(101);
    env.sandbox.publishRun(102, { grossChange: -12, answers: 600 });
    expect((await reportd('sync')).code).toBe(0);

    const first = await reportd('deliver', '--report', 'when-it-matters');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /^sent: report when-it-matters, query set 102, run \d+ to cmo@example\.com/m,
    );
    const skip =
      /^skipped: report when-it-matters, run .+ of query set 101 \(acme\): no likely change among the \d+ changes its report judged \(require_likely_change\); use --force to send it anyway$/m;
    expect(first.stdout).toMatch(skip);
    expect(env.smtp.messages).toHaveLength(1);
    expect(env.smtp.messages[0]!.text).toMatch(/likely change/);

    // Asked again, the quiet run is skipped again, but history holds the decision once.
    expect((await reportd('deliver', '--report', 'when-it-matters')).stdout).toMatch(skip);
    const history = JSON.parse((await reportd('history', '--json')).stdout) as {
      skipped: { job: string; detail: string }[];
    };
    const skipped = history.skipped.filter((s) => s.job === 'report:when-it-matters');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.detail).toMatch(/of query set 101 \(acme\): no likely change among the \d+ changes/);
    const text = (await reportd('history')).stdout;
    expect(text).toContain('Skipped slots and runs (newest first)');
    expect(text).toMatch(/report:when-it-matters .* no likely change among the \d+ changes/);

    // --force sends it anyway.
    const forced = await reportd('deliver', '--report', 'when-it-matters', '--force');
    expect(forced.stdout).toMatch(/^sent: report when-it-matters, query set 101, run \d+/m);
    expect(env.smtp.messages).toHaveLength(3);
  }, 240_000);
});
