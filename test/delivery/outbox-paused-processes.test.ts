import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listDeliveries } from '../../src/outbox/reads.js';
import { listRecipients, type Recipient } from '../../src/outbox/recipients.js';
import type { Delivery } from '../../src/outbox/row.js';
import { openStore } from '../../src/store/db.js';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { testEngine } from '../helpers/test-store.js';
import { type ChannelPeers, startChannelPeers, verifyWebhook } from './channel-peers.js';
import { channelWorker } from './channel-worker-process.js';
import { startSmtp, type TestSmtp, tempDir } from './smtp-helpers.js';

/**
 * A worker frozen (SIGSTOP) past its lease while its request is at the provider, on SQLite and on
 * PostgreSQL, one real process per worker: a second worker takes the row over and is itself mid-send
 * when the first is resumed (SIGCONT) and both answers are released. What the receiver got and what
 * the row's `history` says are compared per channel against docs/channels.md's table: Slack one
 * message and one file; email, webhook and Teams at most the one extra copy (same Message-ID /
 * webhook-id), never a third; the row `sent` with the new owner's answer, nothing of the stale one.
 */
const LEASE_MS = 3_000;
const SECRET = `whsec_${randomBytes(24).toString('base64')}`;

let tmp: ReturnType<typeof tempDir>;
let smtp: TestSmtp;
let peers: ChannelPeers;
let target: string;
/** Requests (or SMTP DATA) that reached a provider, in order; each waits for its `answer[i]()`. */
let held: string[];
let answer: (() => void)[];
/** Told when a held request arrives, before it waits (the test freezes the worker here). */
let onHeld: (what: string) => void;
let children: ChildProcess[];

async function hold(what: string) {
  held.push(what);
  const answered = new Promise<void>((resolve) => answer.push(resolve));
  onHeld(what);
  await answered;
}

beforeEach(async () => {
  tmp = tempDir();
  held = [];
  children = [];
  answer = [];
  onHeld = () => {};
  smtp = await startSmtp({ afterStore: () => hold('DATA') });
  peers = await startChannelPeers();
  target = testEngine() === 'postgres' ? await freshDatabaseUrl() : join(tmp.dir, 'reportd.sqlite');
});
afterEach(async () => {
  for (const resolve of answer) resolve();
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  }
  await smtp.close();
  await peers.close();
  tmp.cleanup();
});

function worker(destination: string) {
  const started = channelWorker({
    store: target,
    smtp,
    peers,
    webhookSecret: SECRET,
    mode: `only:${destination}`,
    leaseMs: LEASE_MS,
    dir: tmp.dir,
    env: { WORKER_DEADLINE_MS: '90000' },
  });
  children.push(started.child);
  return started;
}

async function theRow(): Promise<{ row: Delivery; recipients: Recipient[] }> {
  const store = await openStore(target);
  try {
    const [row] = await listDeliveries(store, 10);
    return { row: row!, recipients: await listRecipients(store, row!.id) };
  } finally {
    await store.close();
  }
}

async function until(what: string, check: () => boolean, timeoutMs = 45_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Worker 1 reaches the provider and is frozen there; worker 2 takes the row over once the lease has
 * run out and reaches the provider too; worker 1 is resumed, then both answers are released.
 */
async function pausedPastTheLease(destination: string, heldRoutes: readonly string[]) {
  peers.beforeAnswer = async (route) => {
    if (heldRoutes.includes(route)) await hold(route);
  };
  const first = worker(destination);
  // Frozen the moment its request is at the provider, before any answer can reach it.
  onHeld = () => {
    if (held.length === 1) first.child.kill('SIGSTOP');
  };
  await until('worker 1 to reach the provider', () => held.length >= 1);
  const second = worker(destination);
  await until('worker 2 to take the row over and reach the provider', () => held.length >= 2, 60_000);
  const { row: taken } = await theRow();
  expect(taken).toMatchObject({ state: 'sending', attempts: 2 });
  // The stale worker hears its answer first and tries to record it while worker 2 still owns the
  // row mid-send: the write the fence must drop (released together, worker 2 often records first
  // and the fence is never put to the test).
  first.child.kill('SIGCONT');
  answer[0]!();
  await until('worker 1 to finish its attempt', () => first.output().includes('"result"'));
  for (const resolve of answer.slice(1)) resolve();
  const [out1, out2] = await Promise.all([first.exit, second.exit]);
  return { out1, out2, ...(await theRow()) };
}

/** The row as `reportd history` shows it: sent on attempt 2 with the receiver's answer to it. */
function expectHistory(row: Delivery, recipients: Recipient[], destination: string, reply: RegExp | null) {
  expect(row).toMatchObject({ state: 'sent', attempts: 2, lastError: null });
  expect(recipients).toHaveLength(1);
  expect(recipients[0]).toMatchObject({ recipient: destination, state: 'accepted' });
  if (reply === null) expect(recipients[0]!.reply).toBeNull();
  else expect(recipients[0]!.reply).toMatch(reply);
}

describe('a worker paused past its lease while the new owner is mid-send (real processes)', () => {
  it('email: at most one extra copy, with the same Message-ID; history says sent', async () => {
    const { out1, out2, row, recipients } = await pausedPastTheLease('email', []);
    expect(out1).toContain('"result":"lost"');
    expect(out2).toContain('"result":"sent"');
    expect(smtp.messages).toHaveLength(2);
    expect(new Set(smtp.messages.map((m) => m.messageId))).toEqual(new Set([row.messageId]));
    // An SMTP acceptance is stored without a reply; a refusal or deferral would carry the server's.
    expectHistory(row, recipients, 'ceo@example.com', null);
  });

  it('Slack: one message and one file; history says posted', async () => {
    // Worker 1 is frozen in chat.postMessage; worker 2 looks for that message before posting.
    const { out1, out2, row, recipients } = await pausedPastTheLease('marketing', [
      'chat.postMessage',
      'conversations.history',
    ]);
    expect(held).toEqual(['chat.postMessage', 'conversations.history']);
    expect(out1).toContain('"result":"lost"');
    expect(out2).toContain('"result":"sent"');
    expect(peers.slackMessages.size).toBe(1);
    expect(peers.accepted('files.completeUploadExternal')).toHaveLength(1);
    expect([...peers.slackThreadFiles.values()].flat()).toHaveLength(1);
    const [ts] = [...peers.slackMessages.keys()];
    expectHistory(
      row,
      recipients,
      'marketing',
      new RegExp(`^posted ${ts!.replace('.', '\\.')} in C0123ABCD`),
    );
  });

  it('webhook: at most one extra POST, same webhook-id, both signed; history says 204', async () => {
    const { out1, out2, row, recipients } = await pausedPastTheLease('ops', ['hook']);
    expect(out1).toContain('"result":"lost"');
    expect(out2).toContain('"result":"sent"');
    const posts = peers.accepted('hook');
    expect(posts).toHaveLength(2);
    expect(new Set(posts.map((p) => p.headers['webhook-id']))).toEqual(new Set([row.messageId]));
    expect(posts.map((p) => verifyWebhook(p, SECRET))).toEqual(['valid', 'valid']);
    expectHistory(row, recipients, 'ops', /^HTTP 204/);
  });

  it('Teams: at most one extra card (no read API to look first); history says 202', async () => {
    const { out1, out2, row, recipients } = await pausedPastTheLease('leadership', ['teams']);
    expect(out1).toContain('"result":"lost"');
    expect(out2).toContain('"result":"sent"');
    expect(peers.accepted('teams')).toHaveLength(2);
    expectHistory(row, recipients, 'leadership', /^HTTP 202/);
  });
});
