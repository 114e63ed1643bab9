import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runCli } from '../helpers/cli.js';
import { type ChannelPeers, peersChannelsYaml, peersSecrets, startChannelPeers } from './channel-peers.js';
import { type DeliveryCliEnv, startDeliveryCliEnv } from './cli-env.js';

/**
 * `reportd deliver` to email and three channels as a user runs it (the built CLI, the sandbox, real
 * Chromium, a real SMTP server, the local channel peers): --dry-run, a Slack outage that retries
 * Slack alone, `history` by destination, and not one secret in anything printed.
 */
let env: DeliveryCliEnv;
let peers: ChannelPeers;
let config: string;
const WEBHOOK_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let secrets: Record<string, string>;
const printed: string[] = [];

async function reportd(...args: string[]): Promise<CliResult> {
  const result = await runCli([...args, '--config', config], {
    cwd: env.dir,
    env: { ...secrets, REPORTD_LOG_LEVEL: 'info' },
  });
  printed.push(result.stdout, result.stderr);
  return result;
}

beforeAll(async () => {
  env = await startDeliveryCliEnv();
  peers = await startChannelPeers();
  secrets = peersSecrets(peers, WEBHOOK_SECRET);
  config = env.writeConfig(
    'reportd.yaml',
    `${env.accountsYaml}sync: { query_sets: [102], backfill_runs: 1 }
smtp: { url: "${env.smtp.url}", from: "Reports <reports@example.com>" }
${peersChannelsYaml(peers)}reports:
  - name: weekly
    query_sets: [102]
    formats: [pdf]
    schedule: { cron: "0 8 * * 1" }
    email: { to: [ceo@example.com] }
    channels: [marketing, leadership, ops]
`,
  );
});

afterAll(async () => {
  await peers?.close();
  await env?.close();
});

describe('reportd deliver to channels', () => {
  it('dry-run, a Slack outage retried alone, history by destination, no secret printed', async () => {
    expect((await reportd('sync')).code).toBe(0);

    const dry = await reportd('deliver', '--report', 'weekly', '--dry-run');
    expect(dry.code).toBe(0);
    const payloads = JSON.parse(dry.stdout) as {
      destination: string;
      type: string;
      payload: Record<string, unknown>;
    }[];
    expect(payloads.map((p) => [p.destination, p.type])).toEqual([
      ['email', 'email'],
      ['marketing', 'slack'],
      ['leadership', 'teams'],
      ['ops', 'webhook'],
    ]);
    expect(payloads[3]!.payload.headers).toMatchObject({
      'webhook-signature': expect.stringMatching(/^v1,/),
    });
    expect(peers.requests).toHaveLength(0);
    expect(env.smtp.messages).toHaveLength(0);
    expect(JSON.parse((await reportd('history', '--json')).stdout).deliveries).toEqual([]);

    peers.failNext.set('chat.postMessage', [{ status: 503, body: 'slack is down' }]);
    const first = await reportd('deliver', '--report', 'weekly');
    expect(first.code).toBe(1);
    expect(first.stdout).toMatch(/^sent: report weekly, query set 102, run \d+ to ceo@example\.com/m);
    expect(first.stdout).toMatch(
      /^sent: report weekly, query set 102, run \d+ to channel leadership \(msg_[0-9a-f]{32}; HTTP 202\)$/m,
    );
    expect(
      first.stderr
        .split('\n')
        .filter((l) => l.startsWith('reportd:'))
        .join('\n'),
    ).toMatch(
      /^reportd: report weekly, query set 102, run \d+ to channel marketing: not yet delivered: marketing \(HTTP 503\); the daemon will retry$/m,
    );

    const second = await reportd('deliver', '--report', 'weekly');
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^sent: report weekly, query set 102, run \d+ to channel marketing/m);
    expect(second.stdout.match(/^already delivered:/gm)).toHaveLength(3);

    expect(env.smtp.messages).toHaveLength(1);
    expect(peers.slackMessages.size).toBe(1);
    expect(peers.slackThreadFiles.get([...peers.slackMessages.keys()][0]!)).toEqual([
      expect.stringMatching(/^weekly-.*\.pdf$/),
    ]);
    expect(peers.accepted('teams')).toHaveLength(1);
    const hooks = peers.accepted('hook');
    expect(hooks).toHaveLength(1);
    // The webhook names the real PDF the renderer wrote, with its size and hash.
    const file = JSON.parse(hooks[0]!.raw.toString('utf8')).data.files[0];
    const folder = join(env.dir, 'reports', 'weekly');
    const opsDir = readdirSync(folder).find((d) => d.endsWith('-ops'))!;
    // Teams carries no files, so nothing was rendered for it.
    expect(readdirSync(folder).some((d) => d.endsWith('-leadership'))).toBe(false);
    const pdf = readFileSync(
      join(folder, opsDir, readdirSync(join(folder, opsDir)).find((f) => f.endsWith('.pdf'))!),
    );
    expect(file).toMatchObject({ size: pdf.length, sha256: createHash('sha256').update(pdf).digest('hex') });

    const history = JSON.parse((await reportd('history', '--json')).stdout);
    expect(
      history.deliveries
        .map((d: { destination: string; state: string; attempts: number }) => [
          d.destination,
          d.state,
          d.attempts,
        ])
        .sort(),
    ).toEqual([
      ['email', 'sent', 1],
      ['leadership', 'sent', 1],
      ['marketing', 'sent', 2],
      ['ops', 'sent', 1],
    ]);
    const table = (await reportd('history')).stdout;
    expect(table).toMatch(/sent +weekly → marketing {2}set 102 {2}run \d+ {2}attempts 2/);

    const check = await reportd('check');
    expect(check.code).toBe(0);
    const all = printed.join('\n');
    expect(all).toContain('report delivered'); // info logs were printed, and grepped below
    for (const secret of [...Object.values(secrets), peers.teamsPath, WEBHOOK_SECRET.slice(6)]) {
      expect(all).not.toContain(secret);
    }
  }, 300_000);
});
