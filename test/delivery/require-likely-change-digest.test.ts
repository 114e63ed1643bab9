import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryCliEnv, startDeliveryCliEnv } from './cli-env.js';

/**
 * `require_likely_change: true` on a digest (the default mode): the digest is one message across its
 * sets, held back while none of its runs has a likely change (each quiet run recorded in `history`)
 * and sent once, whole, when one of them has. Over HTTP against the sandbox, with the built CLI and
 * a real SMTP server.
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
  - name: digest-when-it-matters
    query_sets: [101, 102]
    formats: [xlsx]
    require_likely_change: true
    schedule: { cron: "0 8 * * 1", timezone: UTC }
    email: { to: [cmo@example.com] }
log: { level: warn }
`,
  );
});

afterAll(() => env?.close());

describe('require_likely_change on a digest', () => {
  it('holds a quiet digest back (history says why), then sends it once when one set has a likely change', async () => {
    expect((await reportd('sync')).code).toBe(0);
    env.sandbox.publishRun(101);
    env.sandbox.publishRun(102);
    expect((await reportd('sync')).code).toBe(0);

    const quiet = await reportd('deliver', '--report', 'digest-when-it-matters');
    expect(quiet.code, quiet.stderr).toBe(0);
    for (const set of [101, 102])
      expect(quiet.stdout).toMatch(
        new RegExp(
          `^skipped: report digest-when-it-matters, run .+ of query set ${set} \\(acme\\): no likely change among the \\d+ changes its report judged \\(require_likely_change\\)`,
          'm',
        ),
      );
    expect(env.smtp.messages).toHaveLength(0);
    const history = JSON.parse((await reportd('history', '--json')).stdout) as {
      skipped: { job: string; detail: string }[];
    };
    expect(history.skipped.filter((s) => s.job === 'report:digest-when-it-matters')).toHaveLength(2);

    // Set 102's next run: gross presence falls 10 points on 600 answers. The digest goes out, once.
    env.sandbox.publishRun(102, { grossChange: -10, answers: 600 });
    expect((await reportd('sync')).code).toBe(0);
    const sent = await reportd('deliver', '--report', 'digest-when-it-matters');
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/^sent: .*digest-when-it-matters/m);
    expect(env.smtp.messages).toHaveLength(1);
    expect((await reportd('deliver', '--report', 'digest-when-it-matters')).code).toBe(0);
    expect(env.smtp.messages).toHaveLength(1);
  }, 300_000);
});
