import { mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from './smtp-helpers.js';
import { S3_KEY, startS3, startSshd, type TestS3, type TestSshd } from './storage-peers.js';

/**
 * `reportd check --destinations` (the built CLI) against real peers: s3rver through the AWS SDK,
 * OpenSSH's sshd, a folder. One line per storage channel, ok or a one-line fault naming the channel
 * and its bucket, host or folder; no credential in the output; exit 1 when any fails; nothing left
 * behind by the probe.
 */
const tmp = tempDir();
const dir = realpathSync(tmp.dir);
let s3: TestS3;
let sshd: TestSshd;
let config: string;
const WRONG_SECRET = 'wrong-secret-value-0123456789';

beforeAll(async () => {
  s3 = await startS3(join(dir, 's3'), ['reports']);
  sshd = await startSshd(join(dir, 'sshd'));
  mkdirSync(join(dir, 'share'));
  config = join(dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - { name: acme, base_url: "http://127.0.0.1:9", api_key: k, api_secret: s }
channels:
  - { name: archive, type: s3, bucket: reports, prefix: weekly/, endpoint: "${s3.endpoint}", force_path_style: true }
  - { name: nobucket, type: s3, bucket: no-such-bucket, endpoint: "${s3.endpoint}", force_path_style: true }
  - { name: drop, type: sftp, host: 127.0.0.1, port: ${sshd.port}, username: ${sshd.user}, private_key_file: ${sshd.keyFile}, host_key: "${sshd.hostKey}", path: ${sshd.root} }
  - { name: moved, type: sftp, host: 127.0.0.1, port: ${sshd.port}, username: ${sshd.user}, private_key_file: ${sshd.keyFile}, host_key: "${sshd.otherHostKey}", path: ${sshd.root} }
  - { name: share, type: folder, path: share }
  - { name: unmounted, type: folder, path: not-mounted }
`,
  );
}, 60_000);
afterAll(async () => {
  await sshd?.close();
  await s3?.close();
  tmp.cleanup();
});

const check = (env: Record<string, string>) =>
  runCli(['check', '--destinations', '--config', config], {
    cwd: dir,
    env: { REPORTD_LOG_LEVEL: 'warn', ...env },
  });

describe('reportd check --destinations', () => {
  it('one line per storage channel: ok, or the fault naming channel and bucket/host/folder', async () => {
    const result = await check({ AWS_ACCESS_KEY_ID: S3_KEY.id, AWS_SECRET_ACCESS_KEY: S3_KEY.secret });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines, result.stdout).toHaveLength(6);
    expect(lines[0]).toMatch(
      /^channel archive \(s3 bucket reports\): ok \(probe reportd-check-\w+\.txt written, read back and removed\)$/,
    );
    expect(lines[1]).toMatch(
      /^channel nobucket: s3 bucket no-such-bucket: .*refused, NoSuchBucket \(HTTP 404\)$/,
    );
    expect(lines[2]).toMatch(/^channel drop \(sftp host 127\.0\.0\.1\): ok /);
    expect(lines[3]).toBe(
      "channel moved: sftp host 127.0.0.1: the server's host key is not the pinned host_key (refused)",
    );
    expect(lines[4]).toMatch(/^channel share \(folder \/.*\/share\): ok /);
    expect(lines[5]).toMatch(/^channel unmounted: folder \/.*\/not-mounted: no such folder$/);
    // The probes are gone.
    expect(readdirSync(join(dir, 'share'))).toEqual([]);
    expect(readdirSync(sshd.root)).toEqual([]);
    expect(readdirSync(join(dir, 's3', 'reports')).filter((n) => n.includes('reportd-check'))).toEqual([]);
  }, 120_000);

  it('a wrong S3 credential is one line per s3 channel, refused, with no credential in it', async () => {
    const result = await check({
      AWS_ACCESS_KEY_ID: 'AKIAWRONGKEY0000',
      AWS_SECRET_ACCESS_KEY: WRONG_SECRET,
    });
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^channel archive: s3 bucket reports: PUT weekly\/reportd-check-\w+\.txt: refused, \w+ \(HTTP 403\)$/,
    );
    expect(`${result.stdout}${result.stderr}`).not.toContain(WRONG_SECRET);
    expect(`${result.stdout}${result.stderr}`).not.toContain('AKIAWRONGKEY0000');
  }, 120_000);

  it('an S3 endpoint that accepts and never answers fails after timeout_seconds, in one line', async () => {
    // A TCP server that takes the connection and says nothing: a hung proxy or a dropping firewall.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const hung = join(dir, 'hung.yaml');
    writeFileSync(
      hung,
      `accounts:
  - { name: acme, base_url: "http://127.0.0.1:9", api_key: k, api_secret: s }
channels:
  - { name: hung, type: s3, bucket: reports, endpoint: "http://127.0.0.1:${port}", force_path_style: true, timeout_seconds: 1 }
`,
    );
    try {
      const result = await runCli(['check', '--destinations', '--config', hung], {
        cwd: dir,
        env: {
          REPORTD_LOG_LEVEL: 'warn',
          AWS_ACCESS_KEY_ID: S3_KEY.id,
          AWS_SECRET_ACCESS_KEY: S3_KEY.secret,
        },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(
        /^channel hung: s3 bucket reports: PUT reportd-check-\w+\.txt: network error, .+\n$/,
      );
      expect(sockets.size).toBeGreaterThan(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 120_000);
});
