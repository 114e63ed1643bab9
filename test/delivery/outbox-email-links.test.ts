import { createHash, randomBytes } from 'node:crypto';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ListObjectsV2Command, type ListObjectsV2CommandOutput, S3Client } from '@aws-sdk/client-s3';
import nodemailer from 'nodemailer';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { s3Channel } from '../../src/config/storage-channels.js';
import type { ReportEmailConfig } from '../../src/delivery/compose/email.js';
import type { EmailContent } from '../../src/delivery/content.js';
import { mailerFromTransport } from '../../src/delivery/destinations/smtp-mailer.js';
import { fileRecorder } from '../../src/delivery/file-records.js';
import type { DeliveryRenderer } from '../../src/delivery/outbox-options.js';
import { Outbox } from '../../src/delivery/outbox-worker.js';
import { openStore } from '../../src/store/db.js';
import { deliveredFiles } from '../../src/store/delivered-files.js';
import type { Store } from '../../src/store/sql.js';
import { runCli } from '../helpers/cli.js';
import { setEnv } from '../helpers/env.js';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { testEngine } from '../helpers/test-store.js';
import { startSmtp, type TestSmtp, tempDir } from './smtp-helpers.js';
import { S3_KEY, startS3, type TestS3, unfinishedUploads } from './storage-peers.js';

/**
 * `email.attach: auto|links`: a report too big to attach reaches the reader as pre-signed links into
 * an S3 channel (s3rver, SigV4, through the AWS SDK), the files uploaded in the same fenced outbox
 * attempt before the message leaves (a real SMTP server); the links work until the expiry the email
 * states and are refused after; and every file a reader got, attached or linked, is on record.
 */
const tmp = tempDir();
const dir = realpathSync(tmp.dir);
let s3: TestS3;
let restoreEnv: (() => void) | undefined;
let smtp: TestSmtp;
let store: Store;
let target: string;
const onPostgres = testEngine() === 'postgres';
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const MB = 1024 * 1024;

/** A 25 MB "PDF" of random bytes (nothing compresses it) and a small workbook, the same on every render. */
const big = randomBytes(25 * MB);
const bigPath = join(dir, 'digest.pdf');
const xlsx = randomBytes(40_000);
const xlsxPath = join(dir, 'digest.xlsx');

beforeAll(async () => {
  writeFileSync(bigPath, big);
  writeFileSync(xlsxPath, xlsx);
  s3 = await startS3(join(dir, 's3'), ['reports']);
  restoreEnv = setEnv({ AWS_ACCESS_KEY_ID: S3_KEY.id, AWS_SECRET_ACCESS_KEY: S3_KEY.secret });
}, 60_000);
afterAll(async () => {
  restoreEnv?.();
  await s3?.close();
  tmp.cleanup();
});
beforeEach(async () => {
  smtp = await startSmtp();
  target = onPostgres ? await freshDatabaseUrl() : join(dir, `reportd-${Date.now()}.sqlite`);
  store = await openStore(target);
});
afterEach(async () => {
  await store.close();
  await smtp.close();
});

const renderer = (files: EmailContent['files']): DeliveryRenderer => ({
  async render(delivery) {
    return {
      brand: 'Northwind <Coffee> & Co',
      querySet: { id: delivery.querySetId, name: 'Main set' },
      run: { id: delivery.runId, display_name: `Week ${delivery.runId}` },
      kpis: [],
      files,
    };
  },
});

function outbox(report: ReportEmailConfig, files: EmailContent['files'], bucket = 'reports') {
  const archive = s3Channel.parse({
    name: 'archive',
    type: 's3',
    bucket,
    prefix: 'weekly/',
    endpoint: s3.endpoint,
    force_path_style: true,
  });
  return new Outbox({
    store,
    renderer: renderer(files),
    mailer: mailerFromTransport(nodemailer.createTransport({ url: smtp.url, ignoreTLS: true } as never)),
    from: 'Reports <reports@example.com>',
    reports: [report],
    storage: new Map([['archive', archive]]),
    onFilesWritten: fileRecorder(store, '400d'),
    backoff: { baseMs: 0, capMs: 0 },
  });
}

const client = () =>
  new S3Client({
    region: 'us-east-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: S3_KEY.id, secretAccessKey: S3_KEY.secret },
  });
const listed = (out: ListObjectsV2CommandOutput) =>
  (out.Contents ?? []).map((o) => ({ key: o.Key!, at: o.LastModified!.getTime() }));

describe('links instead of attachments', () => {
  it('a 25 MB report with attach: auto arrives as a < 1 MB email of links that work until the stated expiry, uploaded once', async () => {
    const report: ReportEmailConfig = {
      name: 'weekly',
      email: { to: ['cfo@example.com'], attach: 'auto', links_from: 'archive', link_expiry: '20s' },
      max_attachment_mb: 10,
      locale: 'en-GB',
    };
    const box = outbox(report, [
      { path: bigPath, format: 'pdf' },
      { path: xlsxPath, format: 'xlsx' },
    ]);
    await box.enqueue({ report: 'weekly', querySetId: 101, runId: 10, account: 'acme' });
    // The first attempt uploads, then the mail server answers 451: the retry reuses the same names.
    smtp.failNext = 1;
    const s3c = client();
    try {
      const first = await box.runOnce();
      expect(first?.error ?? '').toMatch(/451/);
      expect(first?.result).toBe('retry');
      const afterFirst = listed(await s3c.send(new ListObjectsV2Command({ Bucket: 'reports' })));
      expect(afterFirst.map((o) => o.key.replace(/^.*\//, '')).sort()).toEqual([
        'manifest.json',
        'weekly-northwind-coffee-co-week-10.pdf',
        'weekly-northwind-coffee-co-week-10.xlsx',
      ]);
      const manifestAt = afterFirst.find((o) => o.key.endsWith('manifest.json'))!.at;
      for (const o of afterFirst) expect(manifestAt).toBeGreaterThanOrEqual(o.at);

      expect((await box.runOnce())?.result).toBe('sent');
      const [mail] = await smtp.waitFor(1);
      expect(smtp.sizes[0]).toBeLessThan(MB);
      expect(mail!.attachments).toEqual([]);
      const text = mail!.text ?? '';
      const html = String(mail!.html);
      expect(text).toMatch(/Download the files \(the links work until .+\):/);
      expect(html).toMatch(/Download the files \(the links work until .+\):/);
      const links = [...text.matchAll(/(http:\/\/127\.0\.0\.1:\d+\/\S+)/g)].map((m) => m[1]!);
      expect(links).toHaveLength(2);
      // The HTML carries the same links, escaped as HTML attributes are (a browser decodes them back).
      const hrefs = [...html.matchAll(/href="([^"]+)"/g)].map((m) =>
        m[1]!.replaceAll('&#x3D;', '=').replaceAll('&amp;', '&'),
      );
      expect(hrefs).toEqual(links);
      // The API's brand, untrusted, is escaped in the HTML and harmless in the names.
      expect(html).not.toContain('<Coffee>');

      // Nothing written twice: the retry found every name whole and left it alone.
      const after = listed(await s3c.send(new ListObjectsV2Command({ Bucket: 'reports' })));
      expect(after).toEqual(afterFirst);
      expect(unfinishedUploads(s3, 'reports')).toEqual([]);

      const wanted = [sha(big), sha(xlsx)];
      for (const [i, link] of links.entries()) {
        const got = await fetch(link);
        expect(got.status).toBe(200);
        expect(sha(Buffer.from(await got.arrayBuffer()))).toBe(wanted[i]);
      }

      // The record: what this reader got, with hashes and where the links lead.
      const record = await deliveredFiles(store, { from: 0, to: Date.now() + 1, reader: 'cfo@example.com' });
      expect(record.map((r) => [r.destination, r.location, r.file, r.sha256, r.size])).toEqual([
        ['email', 's3 bucket reports', 'weekly-northwind-coffee-co-week-10.pdf', sha(big), big.length],
        ['email', 's3 bucket reports', 'weekly-northwind-coffee-co-week-10.xlsx', sha(xlsx), xlsx.length],
      ]);

      // After the expiry the email stated, the same links are refused.
      const url = new URL(links[0]!);
      const signed = url.searchParams.get('X-Amz-Date')!;
      const signedAt = Date.parse(
        `${signed.slice(0, 4)}-${signed.slice(4, 6)}-${signed.slice(6, 8)}T${signed.slice(9, 11)}:${signed.slice(11, 13)}:${signed.slice(13, 15)}Z`,
      );
      expect(url.searchParams.get('X-Amz-Expires')).toBe('20');
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, signedAt + 21_500 - Date.now())));
      for (const link of links) {
        const late = await fetch(link);
        expect(late.status).toBe(403);
        expect(await late.text()).toContain('Request has expired');
      }
    } finally {
      s3c.destroy();
    }
  }, 180_000);

  it('under the cap, attach: auto attaches; each accepted reader is on record with the hashes, the refused one is not', async () => {
    const report: ReportEmailConfig = {
      name: 'small',
      email: {
        to: ['cfo@example.com'],
        cc: ['gone@bounce.test', 'analyst@example.com'],
        attach: 'auto',
        links_from: 'archive',
      },
      max_attachment_mb: 10,
    };
    const box = outbox(report, [{ path: xlsxPath, format: 'xlsx' }]);
    await box.enqueue({ report: 'small', querySetId: 101, runId: 11, account: 'acme' });
    await box.runOnce();
    const [mail] = await smtp.waitFor(1);
    expect(mail!.attachments.map((a) => a.filename)).toEqual(['small-northwind-coffee-co-week-11.xlsx']);
    expect(mail!.text).not.toMatch(/Download the files/);
    const all = await deliveredFiles(store, { from: 0, to: Date.now() + 1 });
    expect(all.map((r) => [r.reader, r.destination, r.location, r.object, r.sha256, r.size])).toEqual(
      ['cfo@example.com', 'analyst@example.com'].map((reader) => [
        reader,
        'email',
        'attachment',
        'small-northwind-coffee-co-week-11.xlsx',
        sha(xlsx),
        xlsx.length,
      ]),
    );

    // `reportd history --files --reader X --date D` lists exactly that, read from the same store.
    const config = join(dir, `history-${Date.now()}.yaml`);
    writeFileSync(
      config,
      `accounts:
  - { name: acme, base_url: "http://127.0.0.1:9", api_key: k, api_secret: s }
store: ${onPostgres ? `{ url: "${target}" }` : `{ path: "${target}" }`}
`,
    );
    const today = new Date().toISOString().slice(0, 10);
    const history = await runCli([
      'history',
      '--files',
      '--reader',
      'analyst@example.com',
      '--date',
      today,
      '--json',
      '--config',
      config,
    ]);
    expect(history.stderr).toBe('');
    const rows = (JSON.parse(history.stdout) as { files: { reader: string; file: string; sha256: string }[] })
      .files;
    expect(rows.map((r) => [r.reader, r.file, r.sha256])).toEqual([
      ['analyst@example.com', 'small-northwind-coffee-co-week-11.xlsx', sha(xlsx)],
    ]);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const none = await runCli([
      'history',
      '--files',
      '--reader',
      'analyst@example.com',
      '--date',
      yesterday,
      '--config',
      config,
    ]);
    expect(none.stdout).toBe('Delivered files (oldest first)\n  none\n');
  }, 120_000);

  it('a links_from bucket that is not there fails the email for good, naming the channel and bucket, sending nothing', async () => {
    const report: ReportEmailConfig = {
      name: 'weekly',
      email: { to: ['cfo@example.com'], attach: 'links', links_from: 'archive' },
    };
    const box = outbox(report, [{ path: xlsxPath, format: 'xlsx' }], 'no-such-bucket');
    await box.enqueue({ report: 'weekly', querySetId: 101, runId: 12, account: 'acme' });
    const outcome = await box.runOnce();
    expect(outcome?.result).toBe('failed');
    expect(outcome?.recipients?.[0]?.reply).toMatch(
      /^links_from channel archive: s3 bucket no-such-bucket: .*refused, NoSuchBucket \(HTTP 404\)$/,
    );
    expect(JSON.stringify(outcome)).not.toContain(S3_KEY.secret === 'S3RVER' ? 'SECRET' : S3_KEY.secret);
    expect(smtp.messages).toEqual([]);
  }, 60_000);
});
