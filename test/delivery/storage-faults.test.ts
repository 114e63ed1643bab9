import { realpathSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log.js';
import { listDeliveries } from '../../src/outbox/reads.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { stubRenderer } from '../daemon/helpers.js';
import { runCli } from '../helpers/cli.js';
import { setEnv } from '../helpers/env.js';
import { startSmtp, type TestSmtp, tempDir } from './smtp-helpers.js';
import { startS3, startSshd, type TestS3, type TestSshd } from './storage-peers.js';

/**
 * Storage faults through the outbox (issue 44): a report bound for a missing S3 bucket and for an
 * SFTP server whose host key changed is delivered by the built `reportd deliver`: each fails for good
 * after one attempt, in one line naming the channel and the bucket or host (stderr and `reportd
 * history`), and the daemon's worker sends one failure notice each, through a real SMTP server,
 * naming the destination. A report bound for S3 behind a proxy that answers the first PUTs with
 * `503 SlowDown` is retried by the daemon with its backoff and then written once, with no notice.
 * Neither the S3 secret nor the SFTP password appears in any output, log line, history or notice.
 */
const tmp = tempDir();
const dir = realpathSync(tmp.dir);
/** A key pair of our own in s3rver's account registry (the dummy's secret is its key id, "S3RVER"). */
const S3_ID = 'AKIAREPORTDFAULTS001';
const S3_SECRET = 'rdFaultSecret/Zk81+q0wLm7TnVb3xYc9Hs2PdQeRa';
const SFTP_PASSWORD = 'sftp-Pa55word-Ux7Kq2Wm';
const SECRETS = [S3_SECRET, SFTP_PASSWORD];
const env = { AWS_ACCESS_KEY_ID: S3_ID, AWS_SECRET_ACCESS_KEY: S3_SECRET, SFTP_PASSWORD };
let restoreEnv: (() => void) | undefined;

let sandbox: Sandbox;
let smtp: TestSmtp;
let s3: TestS3;
let sshd: TestSshd;
let proxy: Server;
let daemon: Daemon | undefined;
let config: string;
const logLines: string[] = [];
/** Every text a user or operator sees: CLI output, the daemon's log, history, the notices. */
const seen: string[] = [];
/** The proxy answers this many PUTs with 503 SlowDown before passing them on; when each PUT came. */
const throttle = { failNext: 0, puts: [] as { at: number; status: number }[] };

const reportd = async (...args: string[]) => {
  const result = await runCli([...args, '--config', config], {
    cwd: dir,
    env: { ...env, REPORTD_LOG_LEVEL: 'warn' },
  });
  seen.push(result.stdout, result.stderr);
  return result;
};

/** An HTTP proxy to s3rver that answers the first `throttle.failNext` PUTs as a throttled S3 does. */
function throttlingS3(target: string): Server {
  const { port } = new URL(target);
  return createServer((req, res) => {
    if (req.method === 'PUT' && throttle.failNext > 0) {
      throttle.failNext--;
      throttle.puts.push({ at: Date.now(), status: 503 });
      req.resume();
      req.on('end', () => {
        res.writeHead(503, { 'content-type': 'application/xml' });
        res.end(
          '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>slow-1</RequestId></Error>',
        );
      });
      return;
    }
    if (req.method === 'PUT') throttle.puts.push({ at: Date.now(), status: 200 });
    // Headers as signed (Host included): s3rver checks the SigV4 signature the client made for us.
    const upstream = request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
}

beforeAll(async () => {
  restoreEnv = setEnv(env);
  // s3rver runs in this process: a key pair registered here is the one it checks signatures with.
  const { DUMMY_ACCOUNT } = createRequire(import.meta.url)('s3rver/lib/models/account.js') as {
    DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void };
  };
  DUMMY_ACCOUNT.createKeyPair(S3_ID, S3_SECRET);
  sandbox = await startSandbox({ rate: { requests: 2000, windowMs: 60_000 } });
  smtp = await startSmtp();
  s3 = await startS3(join(dir, 's3'), ['reports']);
  sshd = await startSshd(join(dir, 'sshd'));
  proxy = throttlingS3(s3.endpoint);
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  config = join(dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - name: acme
    base_url: ${sandbox.baseUrl}
    api_key: ${sandbox.apiKey}
    api_secret: ${sandbox.apiSecret}
    rate_limit: { requests: 2000, window_seconds: 60 }
sync: { query_sets: [101], backfill_runs: 1 }
smtp: { url: "${smtp.url}", from: "Reports <reports@example.com>" }
notify_on_failure: { email: [ops@example.com] }
channels:
  - { name: archive, type: s3, bucket: missing-bucket, prefix: weekly/, region: us-east-1, endpoint: "${s3.endpoint}", force_path_style: true }
  - { name: drop, type: sftp, host: 127.0.0.1, port: ${sshd.port}, username: ${sshd.user}, password_env: SFTP_PASSWORD, host_key: "${sshd.otherHostKey}", path: ${sshd.root}, timeout_seconds: 10 }
  - { name: busy, type: s3, bucket: reports, prefix: weekly/, region: us-east-1, endpoint: "${proxyUrl}", force_path_style: true }
reports:
  - name: filed
    query_sets: [101]
    detail: summary
    formats: [pdf]
    schedule: { cron: "0 8 * * 1" }
    channels: [archive, drop]
  - name: throttled
    query_sets: [101]
    formats: [pdf]
    trigger: new_run
    channels: [busy]
log: { level: warn }
`,
  );
}, 60_000);

afterAll(async () => {
  await daemon?.close();
  await new Promise((resolve) => proxy?.close(resolve));
  await sshd?.close();
  await s3?.close();
  await smtp?.close();
  await sandbox?.close();
  restoreEnv?.();
  tmp.cleanup();
});

/** The daemon in this process on the same store, the worker and sync roles only, short backoff. */
async function startTheDaemon(): Promise<Daemon> {
  daemon = await startDaemon({
    config: loadConfig(config),
    logger: createLogger({ level: 'debug', destination: { write: (line: string) => logLines.push(line) } }),
    renderer: stubRenderer(dir),
    roles: ['sync', 'worker'],
    pollMs: 200,
    outbox: { backoff: { baseMs: 500, capMs: 1_000 } },
  });
  return daemon;
}

function partition<T>(items: T[], test: (item: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((item) => !test(item))];
}

function expectNoSecret() {
  const everything = [...seen, ...logLines].join('\n');
  for (const secret of SECRETS) expect(everything).not.toContain(secret);
}

describe('storage faults through the outbox', () => {
  it('a missing bucket and a changed host key fail for good after one attempt, named in one line, with a failure notice each', async () => {
    expect((await reportd('sync')).code).toBe(0);
    const sent = await reportd('deliver', '--report', 'filed');
    expect(sent.code).not.toBe(0);
    expect(sent.stdout).not.toMatch(/sent: /);
    // One line for the run, naming each channel with its bucket or host and why.
    // stderr: the log's JSON lines (warn and up, each naming its destination), then the one error line.
    const [logged, lines] = partition(sent.stderr.trimEnd().split('\n'), (l) => l.startsWith('{'));
    expect(logged.map((l) => (JSON.parse(l) as { destination: string; msg: string }).destination)).toEqual([
      'archive',
      'drop',
    ]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^reportd: report filed, query set 101, run \d+ to channel archive: refused: archive \(/,
    );
    expect(lines[0]).toMatch(
      /to channel archive: refused: archive \(channel archive: s3 bucket missing-bucket: PUT weekly\/filed\/\S+\.pdf: refused, NoSuchBucket \(HTTP 404\)\)/,
    );
    expect(lines[0]).toMatch(
      /to channel drop: refused: drop \(channel drop: sftp host 127\.0\.0\.1: the server's host key is not the pinned host_key \(refused\)/,
    );

    // Failed for good after the one attempt: nothing left to retry.
    const history = await reportd('history');
    expect(history.code).toBe(0);
    // One line per delivery: failed after one attempt, the channel, and its bucket or host with why.
    expect(history.stdout).toMatch(
      /^ {2}\S+ {2}failed {4}filed → archive {2}set 101 {2}run \d+ {2}attempts 1 {2}refused: archive \(channel archive: s3 bucket missing-bucket: PUT \S+: refused, NoSuchBucket \(HTTP 404\)\)$/m,
    );
    expect(history.stdout).toMatch(
      /^ {2}\S+ {2}failed {4}filed → drop {2}set 101 {2}run \d+ {2}attempts 1 {2}refused: drop \(channel drop: sftp host 127\.0\.0\.1: the server's host key is not the pinned host_key \(refused\)\)$/m,
    );
    const json = await reportd('history', '--json');
    const deliveries = (
      JSON.parse(json.stdout) as {
        deliveries: { report: string; destination: string; state: string; attempts: number }[];
      }
    ).deliveries.filter((d) => d.report === 'filed');
    expect(deliveries.map((d) => [d.destination, d.state, d.attempts]).sort()).toEqual([
      ['archive', 'failed', 1],
      ['drop', 'failed', 1],
    ]);

    // The daemon's worker opens an incident per destination and sends its notice.
    await startTheDaemon();
    const notices = await smtp.waitFor(2);
    const byChannel = (name: string) => notices.find((m) => m.text?.includes(`report filed to ${name}:`));
    for (const [name, where] of [
      ['archive', /s3 bucket missing-bucket: .*NoSuchBucket/],
      ['drop', /sftp host 127\.0\.0\.1: the server's host key is not the pinned host_key/],
    ] as const) {
      const notice = byChannel(name);
      expect(notice?.subject).toBe('[reportd] report filed could not be delivered');
      expect(notice?.to).toMatchObject({ value: [{ address: 'ops@example.com' }] });
      expect(notice?.text).toMatch(where);
      seen.push(notice?.text ?? '', notice?.html || '', notice?.subject ?? '');
    }
    // Still one attempt each: the worker did not try them again.
    const after = (await listDeliveries(daemon!.store)).filter((d) => d.report === 'filed');
    expect(after.map((d) => [d.destination, d.state, d.attempts]).sort()).toEqual([
      ['archive', 'failed', 1],
      ['drop', 'failed', 1],
    ]);
    seen.push((await reportd('history')).stdout);
    expectNoSecret();
  }, 180_000);

  it('a throttling answer (503 SlowDown) is retried with backoff, then written once, with no notice', async () => {
    const d = daemon ?? (await startTheDaemon());
    throttle.failNext = 2;
    sandbox.publishRun(101);
    await d.syncNow();
    // While it waits out the backoff, the row says why in one line naming the channel and bucket.
    const errors = new Set<string>();
    await expect
      .poll(
        async () => {
          const rows = (await listDeliveries(d.store)).filter((r) => r.report === 'throttled');
          for (const r of rows) if (r.lastError) errors.add(r.lastError);
          return rows.map((r) => r.state);
        },
        { timeout: 30_000, interval: 50 },
      )
      .toEqual(['sent']);
    expect(errors.size).toBeGreaterThan(0);
    for (const error of errors) {
      expect(error).not.toContain('\n');
      expect(error).toMatch(
        /busy \(channel busy: s3 bucket reports: PUT weekly\/throttled\/\S+\.pdf: SlowDown \(HTTP 503\)\)/,
      );
    }
    seen.push(...errors);
    const [row] = (await listDeliveries(d.store)).filter((r) => r.report === 'throttled');
    expect(row!.attempts).toBe(3);
    // Two 503s, then the file and the manifest; the retries waited out the backoff (500 ms, 1 s).
    expect(throttle.puts.map((p) => p.status)).toEqual([503, 503, 200, 200]);
    const [first, second, third] = throttle.puts.map((p) => p.at);
    expect(second! - first!).toBeGreaterThanOrEqual(450);
    expect(third! - second!).toBeGreaterThanOrEqual(950);

    const client = new S3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: S3_ID, secretAccessKey: S3_SECRET },
    });
    const listed = await client.send(new ListObjectsV2Command({ Bucket: 'reports' }));
    const keys = (listed.Contents ?? []).map((o) => o.Key!).sort();
    client.destroy();
    expect(keys).toHaveLength(2);
    expect(keys.filter((k) => k.endsWith('.pdf'))).toHaveLength(1);
    expect(keys.filter((k) => k.endsWith('manifest.json'))).toHaveLength(1);

    const history = await reportd('history');
    expect(history.stdout).toMatch(/throttled/);
    // No notice went out for a fault that mended.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(
      smtp.messages.filter((m) => /throttled|busy/.test(`${m.subject} ${m.text}`)).map((m) => m.subject),
    ).toEqual([]);
    expectNoSecret();
  }, 120_000);
});
