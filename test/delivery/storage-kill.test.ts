import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outbox } from '../../src/delivery/outbox-worker.js';
import { openStore } from '../../src/store/db.js';
import { bundledFixture } from '../helpers/bundled-fixture.js';
import { tempDir } from './smtp-helpers.js';
import { startSshd, type TestSshd } from './storage-peers.js';

/**
 * `kill -9` of a worker process mid-upload: a 30 MB file to OpenSSH's sftp through a local TCP proxy
 * that lets ~3 MB/s through, the worker killed once about a third is on the server, then a new
 * worker process after the lease ran out: the name exists once, whole (its hash matches), and no
 * temporary `.partial` is left.
 */
const FIXTURE = fileURLToPath(new URL('./fixtures/storage-worker.ts', import.meta.url));
const tmp = tempDir();
const dir = realpathSync(tmp.dir);
const MB = 1024 * 1024;
const LEASE_MS = 3_000;
let sshd: TestSshd;
let proxy: Server;
let proxyPort: number;
const body = randomBytes(30 * MB);
const pdf = join(dir, 'big.pdf');
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A TCP proxy to `port` that passes at most `bytesPerSecond` from the client to the server. */
function throttlingProxy(port: number, bytesPerSecond: number): Server {
  return createServer((client: Socket) => {
    const server = createConnection(port, '127.0.0.1');
    const started = Date.now();
    let sent = 0;
    client.on('data', (chunk: Buffer) => {
      server.write(chunk);
      sent += chunk.length;
      const ahead = sent / bytesPerSecond - (Date.now() - started) / 1000;
      if (ahead > 0) {
        client.pause();
        setTimeout(() => client.resume(), ahead * 1000);
      }
    });
    server.pipe(client);
    const end = () => {
      client.destroy();
      server.destroy();
    };
    client.on('error', end).on('close', end);
    server.on('error', end).on('close', end);
  });
}

function worker(channel: object): { child: ChildProcess; exit: Promise<string> } {
  const child = spawn(
    process.execPath,
    [...bundledFixture(FIXTURE), join(dir, 'reportd.sqlite'), JSON.stringify(channel), pdf, String(LEASE_MS)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let text = '';
  child.stdout!.on('data', (chunk) => {
    text += chunk;
  });
  return { child, exit: new Promise((resolve) => child.on('exit', () => resolve(text))) };
}

/** Every file below `root`, relative. */
function files(root: string, prefix = ''): string[] {
  return readdirSync(join(root, prefix), { withFileTypes: true }).flatMap((entry) => {
    const name = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? files(root, name) : [name];
  });
}

beforeAll(async () => {
  writeFileSync(pdf, body);
  sshd = await startSshd(join(dir, 'sshd'));
  proxy = throttlingProxy(sshd.port, 3 * MB);
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyPort = (proxy.address() as { port: number }).port;
}, 60_000);
afterAll(async () => {
  proxy?.close();
  await sshd?.close();
  tmp.cleanup();
});

describe('kill -9 mid-upload', () => {
  it('sftp: a killed worker leaves no second copy and no temporary file once the next run is done', async () => {
    const channel = {
      name: 'drop',
      type: 'sftp',
      host: '127.0.0.1',
      port: proxyPort,
      username: sshd.user,
      private_key_file: sshd.keyFile,
      host_key: sshd.hostKey,
      path: sshd.root,
    };
    const store = await openStore(join(dir, 'reportd.sqlite'));
    const box = new Outbox({
      store,
      renderer: { render: () => Promise.reject(new Error('only queues')) },
      mailer: { send: () => Promise.reject(new Error('no email')), close() {} },
      from: 'reports@example.com',
      reports: [{ name: 'big', channels: ['drop'] }],
    });
    expect(
      (await box.enqueueAll({ report: 'big', querySetId: 101, runId: 10, account: 'acme' })).length,
    ).toBe(1);
    await store.close();

    const first = worker(channel);
    const started = Date.now();
    // Wait until about a third of the file is on the server under its temporary name.
    let partial: string | undefined;
    while (Date.now() - started < 60_000) {
      partial = files(sshd.root).find((n) => n.endsWith('.partial'));
      if (partial && statSync(join(sshd.root, partial)).size > 10 * MB) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(partial).toMatch(/\/\.big-northwind-week-10\.pdf\.partial$/);
    first.child.kill('SIGKILL');
    await first.exit;
    const killedAt = Date.now();
    const killedAfterMs = killedAt - started;
    // The name was never there in part: only the temporary one is.
    expect(files(sshd.root).filter((n) => n.endsWith('big-northwind-week-10.pdf'))).toEqual([]);

    // A new worker once the dead one's lease has run out.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 500));
    const second = worker(channel);
    const out = await second.exit;
    const restartMs = Date.now() - killedAt;
    expect(out).toMatch(/"result":"sent"/);
    const left = files(sshd.root);
    expect(left.filter((n) => n.includes('.partial'))).toEqual([]);
    const named = left.filter((n) => n.endsWith('.pdf'));
    expect(named).toHaveLength(1);
    const whole = readFileSync(join(sshd.root, named[0]!));
    expect(whole.length).toBe(body.length);
    expect(sha(whole)).toBe(sha(body));
    expect(readFileSync(join(sshd.root, `${named[0]!}.sha256`), 'utf8').split(' ')[0]).toBe(sha(body));
    expect(left.filter((n) => n.endsWith('manifest.json'))).toHaveLength(1);
    expect(existsSync(join(sshd.root, `${named[0]!}.partial`))).toBe(false);
    process.stdout.write(`kill -9 after ${killedAfterMs} ms; restart to done ${restartMs} ms\n`);
  }, 180_000);
});
