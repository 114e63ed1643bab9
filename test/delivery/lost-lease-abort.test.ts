import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listDeliveries } from '../../src/outbox/reads.js';
import type { Delivery } from '../../src/outbox/row.js';
import { openStore } from '../../src/store/db.js';
import { type ChannelPeers, startChannelPeers, verifyWebhook } from './channel-peers.js';
import { type ChannelWorker, channelWorker } from './channel-worker-process.js';
import { startSmtp, type TestSmtp, tempDir } from './smtp-helpers.js';

/**
 * A worker that learns it lost its lease gives the attempt up where it stands (issue 36), real
 * processes each: worker A claims a row and connects to its receiver, which holds that first
 * connection before anything is sent (a tarpit: an SMTP server that does not greet yet; a TLS
 * receiver that does not answer the handshake yet); A is frozen (SIGSTOP) there, its lease runs out,
 * worker B takes the row over and delivers; A is resumed (SIGCONT) with its connection still held,
 * which the tarpit lets go at least 5 s after it came and 1 s after A resumed. A's first lease
 * renewal finds the row B's and aborts: the SMTP connection is closed before DATA, the webhook's POST
 * and Slack's chat.postMessage are never sent. The receiver gets one copy, not the two it got before
 * the abort was wired (for Slack: B looked for the message before A's post landed, found none, posted).
 */
const LEASE_MS = 3_000;
const HOLD_MS = 5_000;
const AFTER_RESUME_MS = 1_000;
const SECRET = `whsec_${randomBytes(24).toString('base64')}`;

let tmp: ReturnType<typeof tempDir>;
let smtp: TestSmtp;
let peers: ChannelPeers;
/** Connections that reached the receiver's tarpit, in order. */
let connections: number;
/** Resolves when worker A has been resumed (the tarpit holds A's connection past it). */
let resumed: Promise<void>;
let resume: () => void;
let children: ChannelWorker[];
let closers: (() => Promise<void>)[];

beforeEach(async () => {
  tmp = tempDir();
  connections = 0;
  resumed = new Promise((resolve) => {
    resume = resolve;
  });
  children = [];
  closers = [];
  smtp = await startSmtp({ beforeGreeting: () => tarpit() });
  peers = await startChannelPeers();
});
afterEach(async () => {
  for (const { child } of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  }
  for (const close of closers) await close();
  await smtp.close();
  await peers.close();
  tmp.cleanup();
});

/**
 * Counts the connection; holds the first (worker A's) before the receiver says a word, for HOLD_MS
 * and until AFTER_RESUME_MS after A was resumed, so A's lease renewal, not the receiver, speaks first.
 */
function tarpit(): Promise<void> {
  if (++connections > 1) return Promise.resolve();
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  return Promise.all([sleep(HOLD_MS), resumed.then(() => sleep(AFTER_RESUME_MS))]).then(() => {});
}

function worker(destination: string, env: Record<string, string> = {}): ChannelWorker {
  const started = channelWorker({
    store: join(tmp.dir, 'reportd.sqlite'),
    smtp,
    peers,
    webhookSecret: SECRET,
    mode: `only:${destination}`,
    leaseMs: LEASE_MS,
    dir: tmp.dir,
    env: { WORKER_DEADLINE_MS: '50000', ...env },
  });
  children.push(started);
  return started;
}

async function until(what: string, check: () => boolean, timeoutMs = 40_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function theRow(): Promise<Delivery> {
  const store = await openStore(join(tmp.dir, 'reportd.sqlite'));
  try {
    return (await listDeliveries(store, 10))[0]!;
  } finally {
    await store.close();
  }
}

/**
 * A connects and is frozen while its receiver holds it; B takes the row over and connects in turn;
 * A is resumed with its connection still held. Returns both workers' outputs and the row.
 */
async function frozenWhileHeld(destination: string, env: Record<string, string> = {}) {
  const a = worker(destination, env);
  await until('worker A to connect', () => connections >= 1);
  a.child.kill('SIGSTOP');
  const b = worker(destination, env);
  await until('worker B to take the row over and connect', () => connections >= 2);
  a.child.kill('SIGCONT');
  resume();
  const [outA, outB] = await Promise.all([a.exit, b.exit]);
  return { outA, outB, row: await theRow() };
}

describe('a worker that learns it lost its lease sends nothing (real processes)', () => {
  it('email: A, frozen before the SMTP greeting, closes its connection; the server gets one copy', async () => {
    const { outA, outB, row } = await frozenWhileHeld('email');
    expect(outA).toContain('"result":"lost"');
    expect(outB).toContain('"result":"sent"');
    expect(row).toMatchObject({ state: 'sent', attempts: 2 });
    expect(smtp.messages.map((m) => m.messageId)).toEqual([row.messageId]);
  });

  it('webhook: A, frozen in its TLS handshake, never sends its POST; the receiver gets one', async () => {
    const { outA, outB, row } = await frozenWhileHeld('ops', await behindTlsTarpit());
    expect(outA).toContain('"result":"lost"');
    expect(outB).toContain('"result":"sent"');
    expect(row).toMatchObject({ state: 'sent', attempts: 2 });
    const posts = peers.accepted('hook');
    expect(posts.map((p) => p.headers['webhook-id'])).toEqual([row.messageId]);
    expect(verifyWebhook(posts[0]!, SECRET)).toBe('valid');
  });

  it('Slack: A, frozen in the handshake of chat.postMessage, never posts; one message, one file', async () => {
    const { outA, outB, row } = await frozenWhileHeld('marketing', await behindTlsTarpit());
    expect(outA).toContain('"result":"lost"');
    expect(outB).toContain('"result":"sent"');
    expect(row).toMatchObject({ state: 'sent', attempts: 2 });
    expect(peers.accepted('chat.postMessage')).toHaveLength(1);
    expect(peers.slackMessages.size).toBe(1);
    expect([...peers.slackThreadFiles.values()].flat()).toHaveLength(1);
  });
});

/** The workers' environment that routes Slack and the webhook through a TLS tarpit (closed after the test). */
async function behindTlsTarpit(): Promise<Record<string, string>> {
  const front = await tlsTarpit(peers, tmp.dir);
  closers.push(front.close);
  return { PEERS_TLS_URL: `https://127.0.0.1:${front.port}`, NODE_EXTRA_CA_CERTS: front.caFile };
}

/**
 * An HTTPS front for the channel peers that holds each connection's TLS handshake for HOLD_MS (the
 * client has sent its ClientHello and nothing of its request), then terminates TLS with a throwaway
 * certificate for 127.0.0.1 and passes the request on to the peers.
 */
async function tlsTarpit(
  target: ChannelPeers,
  dir: string,
): Promise<{ port: number; caFile: string; close(): Promise<void> }> {
  const key = join(dir, 'front-key.pem');
  const cert = join(dir, 'front-cert.pem');
  const subject = ['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'];
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];
  execFileSync(
    'openssl',
    ['req', '-x509', ...ec, '-nodes', '-days', '1', ...subject, '-keyout', key, '-out', cert],
    {
      stdio: 'ignore',
    },
  );
  const credentials = { key: readFileSync(key), cert: readFileSync(cert) };
  const upstream = new URL(target.url);
  const sockets = new Set<Socket>();
  const server: Server = createServer((raw) => {
    sockets.add(raw);
    raw.on('error', () => {});
    raw.on('close', () => sockets.delete(raw));
    void tarpit().then(() => {
      if (raw.destroyed) return; // the client gave up during the hold: nothing was sent
      const secure = new TLSSocket(raw, { isServer: true, ...credentials });
      const onward = netConnect(Number(upstream.port), upstream.hostname);
      for (const socket of [secure, onward]) socket.on('error', () => secure.destroy());
      secure.pipe(onward).pipe(secure);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    caFile: cert,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
