import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from './smtp-helpers.js';
import { S3_KEY, startS3, startSshd, type TestS3, type TestSshd } from './storage-peers.js';

/**
 * A digest of ten sets and its workbook delivered by the built CLI to an S3 server (s3rver, SigV4
 * through the AWS SDK), an SFTP server (OpenSSH's sshd) and a folder, read back from each peer
 * without reportd's code: every file once, its hash as written beside it, the manifest last; a second
 * `deliver` writes nothing.
 */
const tmp = tempDir();
const dir = realpathSync(tmp.dir);
let sandbox: Sandbox;
let s3: TestS3;
let sshd: TestSshd;
let config: string;
const SETS = [101, 102, 301, 302, 303, 304, 305, 306, 307, 308];
/**
 * Ten sets' sync is some 350 requests: at the API's default 120 per 60 s it waited out the rate window
 * for three minutes. The budget is not what this file checks (test/api and test/sync do).
 */
const RATE_LIMIT = 2000;
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const reportd = (...args: string[]) =>
  runCli([...args, '--config', config], {
    cwd: dir,
    env: { REPORTD_LOG_LEVEL: 'warn', AWS_ACCESS_KEY_ID: S3_KEY.id, AWS_SECRET_ACCESS_KEY: S3_KEY.secret },
  });

beforeAll(async () => {
  sandbox = await startSandbox({ extraSets: 8, rate: { requests: RATE_LIMIT, windowMs: 60_000 } });
  s3 = await startS3(join(dir, 's3'), ['reports']);
  sshd = await startSshd(join(dir, 'sshd'));
  (await import('node:fs')).mkdirSync(join(dir, 'share'));
  config = join(dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - name: acme
    base_url: ${sandbox.baseUrl}
    api_key: ${sandbox.apiKey}
    api_secret: ${sandbox.apiSecret}
    rate_limit: { requests: ${RATE_LIMIT}, window_seconds: 60 }
sync: { query_sets: [${SETS.join(', ')}], backfill_runs: 1 }
channels:
  - { name: archive, type: s3, bucket: reports, prefix: weekly/, region: us-east-1, endpoint: "${s3.endpoint}", force_path_style: true }
  - { name: drop, type: sftp, host: 127.0.0.1, port: ${sshd.port}, username: ${sshd.user}, private_key_file: ${sshd.keyFile}, host_key: "${sshd.hostKey}", path: ${sshd.root} }
  - { name: share, type: folder, path: share }
reports:
  - name: portfolio
    query_sets: [${SETS.join(', ')}]
    detail: summary
    formats: [pdf, xlsx]
    schedule: { cron: "0 8 * * 1" }
    channels: [archive, drop, share]
log: { level: warn }
`,
  );
}, 60_000);

afterAll(async () => {
  await sshd?.close();
  await s3?.close();
  await sandbox?.close();
  tmp.cleanup();
});

/** Every file below `root`, relative, with its bytes' hash and its modification time. */
function tree(root: string, prefix = ''): { name: string; sha256: string; mtime: number }[] {
  return readdirSync(join(root, prefix), { withFileTypes: true }).flatMap((entry) => {
    const name = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return tree(root, name);
    const path = join(root, name);
    return [{ name, sha256: sha(readFileSync(path)), mtime: statSync(path).mtimeMs }];
  });
}

/** A manifest's files are the others, whole: each hash matches the bytes and its `.sha256`. */
function checkFolder(root: string) {
  const files = tree(root);
  const manifestEntry = files.find((f) => f.name.endsWith('/manifest.json'))!;
  const manifest = JSON.parse(readFileSync(join(root, manifestEntry.name), 'utf8')) as {
    runs: unknown[];
    files: { name: string; object: string; size: number; sha256: string }[];
  };
  expect(manifest.runs).toHaveLength(10);
  expect(manifest.files.map((f) => f.name.replace(/^.*\./, ''))).toEqual(['pdf', 'xlsx']);
  for (const file of manifest.files) {
    const found = files.find((f) => f.name === file.object)!;
    expect(found.sha256).toBe(file.sha256);
    expect(readFileSync(join(root, `${file.object}.sha256`), 'utf8').split(' ')[0]).toBe(file.sha256);
    // The manifest is written last.
    expect(manifestEntry.mtime).toBeGreaterThanOrEqual(found.mtime);
  }
  // Three files and their .sha256, nothing temporary.
  expect(files.map((f) => f.name).filter((n) => !n.endsWith('.sha256'))).toHaveLength(3);
  expect(files.filter((f) => f.name.includes('.partial'))).toEqual([]);
  return { files, manifest };
}

describe('storage channels through reportd deliver', () => {
  it('a digest of ten sets reaches S3, SFTP and a folder once, whole and hashed; again writes nothing', async () => {
    expect((await reportd('sync')).code).toBe(0);
    const first = await reportd('deliver', '--report', 'portfolio');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    for (const channel of ['archive', 'drop', 'share'])
      expect(first.stdout).toMatch(new RegExp(`sent: .* to channel ${channel} `));

    const folder = checkFolder(join(dir, 'share'));
    const sftp = checkFolder(sshd.root);
    expect(folder.manifest.files.map((f) => f.object)).toEqual(sftp.manifest.files.map((f) => f.object));
    expect(folder.manifest.files[0]!.object).toMatch(/^portfolio\/\d{4}\/digest-1\/portfolio-.*\.pdf$/);

    const client = new S3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: S3_KEY.id, secretAccessKey: S3_KEY.secret },
    });
    const listed = await client.send(new ListObjectsV2Command({ Bucket: 'reports' }));
    const keys = (listed.Contents ?? []).map((o) => o.Key!).sort();
    expect(keys).toHaveLength(3);
    const manifestKey = keys.find((k) => k.endsWith('manifest.json'))!;
    const body = async (Key: string) =>
      Buffer.from(
        await (
          await client.send(new GetObjectCommand({ Bucket: 'reports', Key }))
        ).Body!.transformToByteArray(),
      );
    const manifest = JSON.parse((await body(manifestKey)).toString()) as typeof folder.manifest;
    for (const file of manifest.files) {
      expect(`weekly/${file.object}`).toBe(keys.find((k) => k.endsWith(file.name)));
      const object = await client.send(
        new GetObjectCommand({ Bucket: 'reports', Key: `weekly/${file.object}` }),
      );
      expect(object.Metadata?.sha256).toBe(file.sha256);
      expect(sha(Buffer.from(await object.Body!.transformToByteArray()))).toBe(file.sha256);
    }

    // What the folder's reader got today, exactly, with hashes (the record, not the folder, answers).
    const today = new Date().toISOString().slice(0, 10);
    const got = await reportd('history', '--files', '--reader', 'share', '--date', today, '--json');
    expect(got.code).toBe(0);
    const recorded = (
      JSON.parse(got.stdout) as { files: { object: string; sha256: string; destination: string }[] }
    ).files;
    expect(recorded.map((f) => [f.destination, f.object, f.sha256])).toEqual([
      ...folder.manifest.files.map((f) => ['share', f.object, f.sha256]),
      ['share', expect.stringMatching(/manifest\.json$/), expect.stringMatching(/^[0-9a-f]{64}$/)],
    ]);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const none = await reportd('history', '--files', '--reader', 'share', '--date', yesterday);
    expect(none.stdout).toBe('Delivered files (oldest first)\n  none\n');

    const second = await reportd('deliver', '--report', 'portfolio');
    expect(second.code).toBe(0);
    expect(second.stdout).not.toMatch(/sent: /);
    expect(tree(join(dir, 'share'))).toEqual(folder.files);
    expect(tree(sshd.root)).toEqual(sftp.files);
    const again = await client.send(new ListObjectsV2Command({ Bucket: 'reports' }));
    expect((again.Contents ?? []).map((o) => [o.Key, o.LastModified])).toEqual(
      (listed.Contents ?? []).map((o) => [o.Key, o.LastModified]),
    );
    client.destroy();
  }, 600_000);
});
