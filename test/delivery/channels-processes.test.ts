import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listDeliveries } from '../../src/outbox/reads.js';
import { openStore } from '../../src/store/db.js';
import { bundledFixture } from '../helpers/bundled-fixture.js';
import { type ChannelPeers, startChannelPeers } from './channel-peers.js';
import { startSmtp, type TestSmtp, tempDir } from './smtp-helpers.js';

/**
 * Channels across real processes: a worker killed with SIGKILL between claim and send, and two
 * workers racing on one SQLite file. Either way each destination gets one request per run.
 */
const FIXTURE = fileURLToPath(new URL('./fixtures/channel-worker.ts', import.meta.url));
const LEASE_MS = 1_500;
/**
 * The racing workers never wait for a lease to lapse, so theirs is long: on a loaded machine a 1.5 s
 * lease can lapse between renewals, and a worker that then gives its attempt up (as it must) retries it.
 */
const RACE_LEASE_MS = 10_000;
const SECRET = `whsec_${randomBytes(24).toString('base64')}`;

let tmp: ReturnType<typeof tempDir>;
let smtp: TestSmtp;
let peers: ChannelPeers;
let storePath: string;
beforeEach(async () => {
  tmp = tempDir();
  smtp = await startSmtp();
  peers = await startChannelPeers();
  storePath = join(tmp.dir, 'reportd.sqlite');
});
afterEach(async () => {
  await smtp.close();
  await peers.close();
  tmp.cleanup();
});

function worker(mode: string, leaseMs = LEASE_MS) {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...bundledFixture(FIXTURE),
      storePath,
      smtp.url,
      peers.url,
      peers.slackToken,
      peers.teamsPath,
      SECRET,
      mode,
      String(leaseMs),
      tmp.dir,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let text = '';
  const output = new Promise<string>((resolve) => {
    child.stdout!.on('data', (chunk) => {
      text += chunk;
      if (mode === 'hang-on-slack' && text.includes('claimed')) resolve(text);
    });
    child.on('exit', () => resolve(text));
  });
  const exit = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  return { child, output, exit };
}

async function rows() {
  const store = await openStore(storePath);
  try {
    return await listDeliveries(store, 100);
  } finally {
    await store.close();
  }
}

/** Requests each destination answered 2xx, per run (read from what the peers received). */
function perDestination() {
  const hookRuns = peers
    .accepted('hook')
    .map((r) => JSON.parse(r.raw.toString('utf8')).data.run.id as number);
  const slackRuns = [...peers.slackMessages.values()].map((m) =>
    Number(/Run (\d+)/.exec(String(m.text))?.[1]),
  );
  const teamsRuns = peers
    .accepted('teams')
    .map((r) => Number(/Run (\d+)/.exec(JSON.stringify(r.fields))?.[1]));
  const emailRuns = smtp.messages.map((m) => Number(/Run (\d+)/.exec(m.subject ?? '')?.[1]));
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  return {
    email: sorted(emailRuns),
    slack: sorted(slackRuns),
    slackUploads: peers.accepted('files.completeUploadExternal').length,
    teams: sorted(teamsRuns),
    webhook: sorted(hookRuns),
  };
}

describe('channels across processes', () => {
  it('kill -9 between claim and send of the Slack row: after a restart, one request per destination', async () => {
    const first = worker('hang-on-slack');
    expect(await first.output).toContain('claimed');
    first.child.kill('SIGKILL');
    expect(await first.exit).toBe('SIGKILL');
    expect((await rows()).find((d) => d.destination === 'marketing')).toMatchObject({
      state: 'rendering',
      attempts: 1,
    });
    expect(peers.slackMessages.size).toBe(0);
    expect(smtp.messages).toHaveLength(1); // the email row went first and is done

    const second = worker('normal');
    expect(await second.output).toContain('done');
    expect(perDestination()).toEqual({
      email: [7, 8, 9],
      slack: [7, 8, 9],
      slackUploads: 3,
      teams: [7, 8, 9],
      webhook: [7, 8, 9],
    });
    const slack7 = (await rows()).find((d) => d.destination === 'marketing' && d.runId === 7)!;
    expect(slack7).toMatchObject({ state: 'sent', attempts: 2 });
  });

  it('two workers on one store: one request per destination and run', async () => {
    const [a, b] = [worker('normal', RACE_LEASE_MS), worker('normal', RACE_LEASE_MS)];
    const outputs = await Promise.all([a.output, b.output]);
    for (const output of outputs) expect(output).toContain('done');
    // Both did work (the race was real), yet nothing arrived twice.
    expect(outputs.every((o) => o.includes('"result":"sent"'))).toBe(true);
    expect(perDestination()).toEqual({
      email: [7, 8, 9],
      slack: [7, 8, 9],
      slackUploads: 3,
      teams: [7, 8, 9],
      webhook: [7, 8, 9],
    });
    expect((await rows()).every((d) => d.state === 'sent' && d.attempts === 1)).toBe(true);
  });
});
