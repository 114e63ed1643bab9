import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3ChannelConfig, SftpChannelConfig } from '../../src/config/storage-channels.js';
import { folderStore } from '../../src/delivery/destinations/storage/folder-store.js';
import type { ObjectStore } from '../../src/delivery/destinations/storage/object-store.js';
import { s3Store } from '../../src/delivery/destinations/storage/s3-store.js';
import { sftpStore } from '../../src/delivery/destinations/storage/sftp-store.js';
import { type DeliveryFile, writeDelivery } from '../../src/delivery/destinations/storage/write-delivery.js';
import { setEnv } from '../helpers/env.js';
import { tempDir } from './smtp-helpers.js';
import { S3_KEY, startS3, startSshd, type TestS3, type TestSshd } from './storage-peers.js';

/**
 * Each storage channel against its real peer (a folder, s3rver through the AWS SDK with SigV4, OpenSSH's
 * sshd): every file once under its stable name with its SHA-256, the manifest last, and a second
 * delivery of the same files writing nothing.
 */
const tmp = tempDir();
let s3: TestS3;
let sshd: TestSshd;
let restoreEnv: (() => void) | undefined;

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
function file(name: string, size: number): DeliveryFile & { bytes: Buffer } {
  const bytes = randomBytes(size);
  const path = join(tmp.dir, `src-${name}`);
  writeFileSync(path, bytes);
  return { name, path, size, sha256: sha(bytes), bytes };
}
const files = [file('weekly-acme-run-7.pdf', 300_000), file('weekly-acme-run-7.xlsx', 9 * 1024 * 1024)];
const head = { delivery: '<d1@reportd>', report: 'weekly', account: 'acme', recipient: 'x', runs: [] };
const vars = { report: 'weekly', account: 'acme', yyyy: '2026', mm: '11', dd: '29', run: '7', set: '101' };
const plan = { template: '{{report}}/{{yyyy}}/{{run}}/{{file}}', vars, head, files };

/** Records the order of writes, so "manifest last" is observed, not assumed. */
function watched(store: ObjectStore): ObjectStore & { puts: string[] } {
  const puts: string[] = [];
  return {
    ...store,
    puts,
    put: (name, f, signal) => {
      puts.push(name);
      return store.put(name, f, signal);
    },
  };
}

const s3Config = (over: Partial<S3ChannelConfig> = {}): S3ChannelConfig => ({
  name: 'archive',
  type: 's3',
  bucket: 'reports',
  prefix: 'weekly/',
  region: 'us-east-1',
  timeout_seconds: 30,
  endpoint: s3.endpoint,
  force_path_style: true,
  name_template: plan.template,
  ...over,
});
const sftpConfig = (over: Partial<SftpChannelConfig> = {}): SftpChannelConfig => ({
  name: 'drop',
  type: 'sftp',
  host: '127.0.0.1',
  port: sshd.port,
  username: sshd.user,
  private_key_file: sshd.keyFile,
  host_key: sshd.hostKey,
  path: join(sshd.root, 'upload'),
  timeout_seconds: 10,
  name_template: plan.template,
  ...over,
});

beforeAll(async () => {
  s3 = await startS3(join(tmp.dir, 's3'), ['reports']);
  sshd = await startSshd(join(tmp.dir, 'sshd'));
  restoreEnv = setEnv({ AWS_ACCESS_KEY_ID: S3_KEY.id, AWS_SECRET_ACCESS_KEY: S3_KEY.secret });
});
afterAll(async () => {
  restoreEnv?.();
  await s3?.close();
  await sshd?.close();
  tmp.cleanup();
});

describe.each([
  ['folder', () => folderStore(join(tmp.dir, 'share'))],
  ['s3', () => s3Store(s3Config())],
  ['sftp', () => sftpStore(sftpConfig())],
] as const)('%s channel', (kind, open) => {
  it('writes each file once with its hash, the manifest last, and nothing on a second delivery', async () => {
    if (kind === 'folder') (await import('node:fs')).mkdirSync(join(tmp.dir, 'share'));
    const store = watched(open());
    try {
      const first = await writeDelivery(store, plan);
      const names = files.map((f) => `weekly/2026/7/${f.name}`);
      expect(store.puts).toEqual([...names, 'weekly/2026/7/manifest.json']);
      expect(first.every((w) => w.written)).toBe(true);
      for (const [i, f] of files.entries()) {
        const there = await store.stat(names[i]!);
        expect(there).toEqual({ size: f.size, sha256: f.sha256 });
      }
      const manifest = first.at(-1)!;
      expect(manifest.object).toBe('weekly/2026/7/manifest.json');
      const again = watched(open());
      try {
        const second = await writeDelivery(again, plan);
        expect(again.puts).toEqual([]);
        expect(second.map((w) => w.sha256)).toEqual(first.map((w) => w.sha256));
      } finally {
        await again.close();
      }
    } finally {
      await store.close();
    }
  });
});

describe('what reaches each peer', () => {
  it('folder: the bytes, a .sha256 that sha256sum reads, and no temporary file', () => {
    const dir = join(tmp.dir, 'share/weekly/2026/7');
    expect(readFileSync(join(dir, files[0]!.name)).equals(files[0]!.bytes)).toBe(true);
    expect(readFileSync(join(dir, `${files[0]!.name}.sha256`), 'utf8')).toBe(
      `${files[0]!.sha256}  ${files[0]!.name}\n`,
    );
    expect(readdirSync(dir).filter((n) => n.includes('.partial'))).toEqual([]);
  });

  it('sftp: the bytes on the server, whole, and no temporary file', () => {
    const dir = join(sshd.root, 'upload/weekly/2026/7');
    expect(sha(readFileSync(join(dir, files[1]!.name)))).toBe(files[1]!.sha256);
    expect(readdirSync(dir).sort()).toEqual(
      [...files.map((f) => f.name), 'manifest.json'].flatMap((n) => [n, `${n}.sha256`]).sort(),
    );
  });

  it('s3: a pre-signed link reads the file until it expires, and is refused after', async () => {
    const store = s3Store(s3Config());
    const link = await store.presign!('weekly/2026/7/weekly-acme-run-7.pdf', 2);
    await store.close();
    expect(link).not.toContain(S3_KEY.secret === 'S3RVER' ? 'X-Amz-Secret' : S3_KEY.secret);
    const before = await fetch(link);
    expect(before.status).toBe(200);
    expect(sha(Buffer.from(await before.arrayBuffer()))).toBe(files[0]!.sha256);
    await new Promise((resolve) => setTimeout(resolve, 3_100));
    const after = await fetch(link);
    expect(after.status).toBe(403);
    expect(await after.text()).toContain('Request has expired');
  });
});

describe('faults, each one line naming the destination, never a credential', () => {
  // s3rver checks the access key id but not SigV4's signature bytes, so the wrong credential here is a
  // key pair it does not know; AWS answers a wrong secret alone with the same 403.
  it('s3: a wrong credential is refused for good', async () => {
    const restore = setEnv({
      AWS_ACCESS_KEY_ID: 'AKIAWRONGKEY0000',
      AWS_SECRET_ACCESS_KEY: 'wrong-secret-0123456789',
    });
    try {
      const error = await writeDelivery(s3Store(s3Config()), plan).catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: 'permanent' });
      expect((error as Error).message).toMatch(
        /^s3 bucket reports: HEAD weekly\/weekly\/2026\/7\/weekly-acme-run-7\.pdf: refused, \w+ \(HTTP 403\)$/,
      );
      expect((error as Error).message).not.toMatch(/wrong-secret|AKIAWRONGKEY/);
    } finally {
      restore();
    }
  });

  it('s3: a throttling answer (503 SlowDown) is worth retrying', async () => {
    const { createServer } = await import('node:http');
    const slow = createServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/xml' });
      res.end(
        '<?xml version="1.0"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>',
      );
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const port = (slow.address() as { port: number }).port;
    try {
      const store = s3Store(s3Config({ endpoint: `http://127.0.0.1:${port}` }));
      const error = await store.put('x.pdf', files[0]!).catch((e: unknown) => e);
      expect(error).toMatchObject({
        kind: 'transient',
        message: 's3 bucket reports: PUT weekly/x.pdf: SlowDown (HTTP 503)',
      });
    } finally {
      slow.close();
    }
  });

  it('s3: a missing bucket is refused for good', async () => {
    const error = await writeDelivery(s3Store(s3Config({ bucket: 'no-such-bucket' })), plan).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ kind: 'permanent' });
    expect((error as Error).message).toMatch(
      /^s3 bucket no-such-bucket: .*refused, NoSuchBucket \(HTTP 404\)$/,
    );
  });

  it('sftp: a changed host key is refused for good', async () => {
    const store = sftpStore(sftpConfig({ host_key: sshd.otherHostKey }));
    const error = await writeDelivery(store, plan).catch((e: unknown) => e);
    await store.close();
    expect(error).toMatchObject({ kind: 'permanent' });
    expect((error as Error).message).toBe(
      "sftp host 127.0.0.1: the server's host key is not the pinned host_key (refused)",
    );
  });

  it('folder: a folder that is not there (an unmounted share) is refused for good, and not created', async () => {
    const root = join(tmp.dir, 'not-mounted');
    const error = await writeDelivery(folderStore(root), plan).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'permanent', message: `folder ${root}: no such folder` });
    expect(existsSync(root)).toBe(false);
  });

  it('folder: a full disk is worth retrying, and leaves no partial file', async (context) => {
    const root = join(tmp.dir, 'tmpfs');
    (await import('node:fs')).mkdirSync(root);
    const { execFileSync } = await import('node:child_process');
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', root], { stdio: 'pipe' });
    } catch (error) {
      context.skip(`mounting a tmpfs is not permitted here: ${(error as Error).message.split('\n')[0]}`);
    }
    try {
      const error = await writeDelivery(folderStore(root), plan).catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: 'transient', message: `folder ${root}: disk full (ENOSPC)` });
      const left = readdirSync(join(root, 'weekly/2026/7'));
      // The small PDF fit and is whole; the workbook did not, and neither it nor its temporary name is there.
      expect(left.sort()).toEqual([files[0]!.name, `${files[0]!.name}.sha256`]);
      expect(statSync(join(root, 'weekly/2026/7', files[0]!.name)).size).toBe(files[0]!.size);
    } finally {
      execFileSync('umount', [root]);
    }
  });
});
