import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listDeliveries } from '../../src/outbox/reads.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { openStore } from '../../src/store/db.js';
import { type ChannelPeers, startChannelPeers } from '../delivery/channel-peers.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { type CliResult, runCli } from '../helpers/cli.js';

/**
 * Two `reportd daemon` processes (the built CLI, real Chromium) on one store, a report sent to email
 * and three channels when a run is published: each destination gets exactly one request.
 */
let tmp: ReturnType<typeof tempDir>;
let dir: string;
let sandbox: Sandbox;
let smtp: TestSmtp;
let peers: ChannelPeers;
let config: string;
const secrets: Record<string, string> = {};

beforeAll(async () => {
  tmp = tempDir();
  dir = realpathSync(tmp.dir);
  sandbox = await startSandbox({ rate: { requests: 1000, windowMs: 60_000 } });
  smtp = await startSmtp();
  peers = await startChannelPeers();
  Object.assign(secrets, {
    SLACK_BOT_TOKEN: peers.slackToken,
    TEAMS_WEBHOOK_URL: `${peers.url}${peers.teamsPath}`,
    WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
  });
  config = join(dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - name: acme
    base_url: ${sandbox.baseUrl}
    api_key: ${sandbox.apiKey}
    api_secret: ${sandbox.apiSecret}
    rate_limit: { requests: 1000, window_seconds: 60 }
store: { path: shared.sqlite }
sync: { schedule: "*/2 * * * * *", query_sets: [101], backfill_runs: 1 }
smtp: { url: "${smtp.url}", from: "Reports <reports@example.com>" }
channels:
  - { name: marketing, type: slack, token: "\${SLACK_BOT_TOKEN}", channel: C0123ABCD, api_url: "${peers.url}/api/" }
  - { name: leadership, type: teams, webhook_url: "\${TEAMS_WEBHOOK_URL}" }
  - { name: ops, type: webhook, url: "${peers.url}/hook", secret: "\${WEBHOOK_SECRET}" }
reports:
  - name: on-publish
    query_sets: [101]
    trigger: new_run
    email: { to: [ceo@example.com] }
    channels: [marketing, leadership, ops]
log: { level: info }
`,
  );
});

afterAll(async () => {
  await peers?.close();
  await smtp?.close();
  await sandbox?.close();
  tmp?.cleanup();
});

async function rows() {
  const store = await openStore(join(dir, 'shared.sqlite'));
  try {
    return await listDeliveries(store, 100);
  } finally {
    await store.close();
  }
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('two reportd daemons with channels', () => {
  it('deliver a newly published run once to each destination', async () => {
    const children: ChildProcess[] = [];
    const runs: Promise<CliResult>[] = [0, 1].map(() =>
      runCli(['daemon', '--config', config], { cwd: dir, env: secrets, onSpawn: (c) => children.push(c) }),
    );
    try {
      // Both have synced (the store has the run the sandbox started with) before the new one appears.
      await until(async () => {
        try {
          const store = await openStore(join(dir, 'shared.sqlite'));
          try {
            const ok = await store.get<{ n: number }>(
              `SELECT COUNT(*) AS n FROM sync_runs WHERE outcome = 'ok'`,
            );
            return (ok?.n ?? 0) >= 2;
          } finally {
            await store.close();
          }
        } catch {
          return false;
        }
      }, 60_000);
      const run = sandbox.publishRun(101);
      await until(
        async () => (await rows()).filter((d) => d.runId === run.id && d.state === 'sent').length === 4,
        120_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 3_000)); // give a duplicate every chance
      expect(smtp.messages).toHaveLength(1);
      expect(peers.slackMessages.size).toBe(1);
      expect(peers.accepted('files.completeUploadExternal')).toHaveLength(1);
      expect(peers.accepted('teams')).toHaveLength(1);
      expect(peers.accepted('hook')).toHaveLength(1);
      expect((await rows()).map((d) => [d.destination, d.state, d.attempts]).sort()).toEqual([
        ['email', 'sent', 1],
        ['leadership', 'sent', 1],
        ['marketing', 'sent', 1],
        ['ops', 'sent', 1],
      ]);
    } finally {
      for (const child of children) child.kill('SIGTERM');
    }
    const results = await Promise.all(runs);
    for (const result of results) {
      expect(result.code).toBe(0);
      for (const secret of Object.values(secrets))
        expect(result.stderr + result.stdout).not.toContain(secret);
    }
    // The logs that were grepped for secrets do hold the deliveries (info level).
    expect(results.map((r) => r.stderr).join('')).toContain('report delivered');
  }, 240_000);
});
