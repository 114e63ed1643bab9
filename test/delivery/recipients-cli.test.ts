import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryCliEnv, startDeliveryCliEnv } from './cli-env.js';

/**
 * `deliver` and `history` say who got a report and who did not, against a real SMTP server that
 * greylists one recipient (450) and does not know another (550).
 */
let env: DeliveryCliEnv;
let config: string;
let greylist = true;

beforeAll(async () => {
  env = await startDeliveryCliEnv({
    rcptReply(address) {
      if (address === 'cfo@example.com' && greylist)
        return { code: 450, text: 'Greylisted, try again later' };
      if (address === 'gone@example.com') return { code: 550, text: 'No such user here' };
      // A hostile server's reply: terminal escapes (ESC, and the 8-bit CSI, which clears the screen
      // here) and a bidi override.
      if (address === 'odd@example.com')
        return { code: 550, text: 'No \u001b]0;owned such\u009b2J\u202e user' };
      return undefined;
    },
  });
  config = env.writeConfig(
    'reportd.yaml',
    `${env.accountsYaml}sync: { query_sets: [102], backfill_runs: 1 }
smtp: { url: "${env.smtp.url}", from: "Reports <reports@example.com>" }
reports:
  - name: weekly
    query_sets: [102]
    formats: [xlsx]
    email: { to: [ceo@example.com, "CFO <cfo@example.com>"], bcc: [gone@example.com], subject: "Weekly {{run}}" }
    schedule: { cron: "0 8 * * 1", timezone: UTC }
log: { level: warn }
`,
  );
  expect((await env.reportd(config, 'sync')).code).toBe(0);
}, 120_000);

afterAll(() => env?.close());

/**
 * A config of its own with one `new_run` report to ceo@example.com and `other`, synced before and after
 * a new run is published: that report's row is then due. Its path.
 */
async function newRunReport(name: string, other: string): Promise<string> {
  const config = env.writeConfig(
    `${name}.yaml`,
    `${env.accountsYaml}sync: { query_sets: [102], backfill_runs: 1 }
store: { path: ${name}.sqlite }
smtp: { url: "${env.smtp.url}", from: "Reports <reports@example.com>" }
reports:
  - name: ${name}
    query_sets: [102]
    formats: [xlsx]
    trigger: new_run
    email: { to: [ceo@example.com, ${other}] }
log: { level: warn }
`,
  );
  expect((await env.reportd(config, 'sync')).code).toBe(0);
  env.sandbox.publishRun(102);
  expect((await env.reportd(config, 'sync')).code).toBe(0);
  return config;
}

describe('deliver / history per recipient', () => {
  it('names who got it, who was deferred and who was refused; a later run sends only to the deferred one', async () => {
    const first = await env.reportd(config, 'deliver', '--report', 'weekly');
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(
      /^reportd: report weekly, query set 102, run \d+: sent to ceo@example\.com; refused: gone@example\.com \(550 No such user here\); not yet delivered: cfo@example\.com \(450 Greylisted, try again later\); the daemon will retry$/m,
    );
    expect(env.smtp.envelopes).toEqual([['ceo@example.com']]);

    const history = JSON.parse((await env.reportd(config, 'history', '--json')).stdout);
    expect(history.deliveries[0].state).toBe('pending');
    expect(
      history.deliveries[0].recipients.map((r: { recipient: string; state: string }) => [
        r.recipient,
        r.state,
      ]),
    ).toEqual([
      ['ceo@example.com', 'accepted'],
      ['cfo@example.com', 'deferred'],
      ['gone@example.com', 'refused'],
    ]);
    const table = (await env.reportd(config, 'history')).stdout;
    expect(table).toContain(
      '      ceo@example.com got it, cfo@example.com deferred (450 Greylisted, try again later), gone@example.com refused (550 No such user here)\n',
    );

    greylist = false;
    const second = await env.reportd(config, 'deliver', '--report', 'weekly');
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(
      /^sent: report weekly, query set 102, run \d+ to ceo@example\.com, cfo@example\.com \(<reportd\.[0-9a-f]+@example\.com>\); refused: gone@example\.com \(550 No such user here\)\n$/,
    );
    expect(env.smtp.envelopes).toEqual([['ceo@example.com'], ['cfo@example.com']]);
    expect(env.smtp.messages[1]!.messageId).toBe(env.smtp.messages[0]!.messageId);

    const third = await env.reportd(config, 'deliver', '--report', 'weekly');
    expect(third.stdout).toMatch(/^already delivered: /);
    expect(env.smtp.messages).toHaveLength(2);
  }, 120_000);

  it("deliver --pending says who refused the message and the server's reply, as deliver --report does", async () => {
    const pending = await newRunReport('fresh', 'gone@example.com');
    // Sent to one, refused for good by the other: the row is sent, and the refusal is said with it.
    const run = await env.reportd(pending, 'deliver', '--pending');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^sent: report fresh, query set 102, run \d+ \(<[^>]+>\); refused: gone@example\.com \(550 No such user here\)\n$/,
    );
  }, 120_000);

  it("prints a server's reply without the control characters in it, as deliver --pending and deliver --report", async () => {
    const odd = await newRunReport('odd', 'odd@example.com');
    const pending = await env.reportd(odd, 'deliver', '--pending');
    expect(pending.code, pending.stderr).toBe(0);
    expect(pending.stdout).toMatch(/; refused: odd@example\.com \(550 No .*owned such.*\uFFFD.* user\)\n$/);
    const again = await env.reportd(odd, 'deliver', '--report', 'odd', '--force');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/; refused: odd@example\.com \(550 No .*owned such.*\uFFFD.* user\)\n$/);
    expect(pending.stdout + again.stdout).not.toMatch(
      /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/,
    );
  }, 120_000);
});
