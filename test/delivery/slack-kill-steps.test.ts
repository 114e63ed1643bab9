import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listDeliveries } from '../../src/outbox/reads.js';
import { openStore } from '../../src/store/db.js';
import { type ChannelPeers, startChannelPeers } from './channel-peers.js';
import { type ChannelWorker, channelWorker } from './channel-worker-process.js';
import { startSmtp, type TestSmtp, tempDir } from './smtp-helpers.js';

/**
 * `kill -9` at each step of a Slack delivery (chat.postMessage, files.getUploadURLExternal, the
 * upload, files.completeUploadExternal), ten times at each step: real worker processes
 * (fixtures/channel-worker.ts) killed while the Slack stand-in holds the answer to the step they
 * are in, after Slack did it. Each of the ten runs takes one kill at every step, in order, and still
 * ends with one message and one file in its thread.
 */
const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const STEPS = ['chat.postMessage', 'files.getUploadURLExternal', 'upload', 'files.completeUploadExternal'];
const KILLS_PER_STEP = 10;
/** Runs 7 to 16: a run goes through the four steps once, so ten runs take ten kills at each. */
const RUNS = [7, 16];

let tmp: ReturnType<typeof tempDir>;
let smtp: TestSmtp;
let peers: ChannelPeers;
let storePath: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  tmp = tempDir();
  smtp = await startSmtp();
  peers = await startChannelPeers();
  storePath = join(tmp.dir, 'reportd.sqlite');
});
afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
  await smtp.close();
  await peers.close();
  tmp.cleanup();
});

/** A worker that loads while another works, and starts on `go()`. */
function worker(): ChannelWorker {
  const started = channelWorker({
    store: storePath,
    smtp,
    peers,
    webhookSecret: SECRET,
    mode: 'normal',
    leaseMs: 1500,
    dir: tmp.dir,
    // One worker at a time, from one kill to the next, none to overlap: renders need not be slow.
    env: { RUNS: RUNS.join('-'), RENDER_MS: '20' },
    held: true,
  });
  children.push(started.child);
  return started;
}

describe('Slack under kill -9', () => {
  it('kill -9 at each step of the upload, ten times each: one message and one file per run', {
    timeout: 1_200_000,
  }, async () => {
    const kills = Array.from({ length: KILLS_PER_STEP * STEPS.length }, (_, i) => STEPS[i % STEPS.length]!);
    const killedAt: string[] = [];
    let current: ChildProcess | undefined;
    peers.beforeAnswer = async (route) => {
      if (route !== kills[0] || !current) return;
      kills.shift();
      const child = current;
      current = undefined;
      child.kill('SIGKILL');
      await once(child, 'exit');
      killedAt.push(route);
      throw new Error('the worker is gone'); // its connection drops unanswered
    };
    // Each worker is a new process; the next one loads its modules while this one works.
    let next = worker();
    for (let i = 0; i < 80 && (i === 0 || kills.length > 0 || current === undefined); i++) {
      const started = next;
      next = worker();
      current = started.child;
      const child = current;
      started.go();
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
      if (current === child && kills.length === 0) break;
    }
    expect(STEPS.map((step) => killedAt.filter((at) => at === step).length)).toEqual(
      STEPS.map(() => KILLS_PER_STEP),
    );
    if (current === undefined) {
      // The last kill's work is finished by one more worker.
      next.go();
      await once(next.child, 'exit');
    }
    const store = await openStore(storePath);
    const slackRows = (await listDeliveries(store, 100)).filter((d) => d.destination === 'marketing');
    await store.close();
    const allRuns = Array.from({ length: RUNS[1]! - RUNS[0]! + 1 }, (_, i) => RUNS[0]! + i);
    expect(slackRows.map((d) => d.state)).toEqual(allRuns.map(() => 'sent'));
    const runs = [...peers.slackMessages.values()].map((m) => Number(/Run (\d+)/.exec(String(m.text))?.[1]));
    expect(runs.sort((a, b) => a - b)).toEqual(allRuns);
    for (const ts of peers.slackMessages.keys()) expect(peers.slackThreadFiles.get(ts)).toHaveLength(1);
  });
});
