import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deliverNow } from '../../src/cli/deliver-now.js';
import { previewEml } from '../../src/cli/deliver-preview.js';
import { type Clock, systemClock } from '../../src/clock.js';
import { configFromObject } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { createSmtpMailer } from '../../src/delivery/destinations/smtp-mailer.js';
import { createReportRenderer } from '../../src/delivery/render-delivery.js';
import { createOutbox } from '../../src/delivery/runtime.js';
import { silentLogger } from '../../src/log.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { openStore } from '../../src/store/db.js';
import type { Store } from '../../src/store/sql.js';
import { runSync } from '../../src/sync/sync.js';
import { solidPng } from '../report/images.js';
import { startSmtp, type TestSmtp, tempDir } from './smtp-helpers.js';

/**
 * Preview = send: `reportd deliver --eml` and a delivery through the outbox to a real SMTP server,
 * for the same run at the same clock, give the same message once the three things that must differ
 * are set aside: the Message-ID (a preview is no delivery), the Date header's own spelling, and how
 * the inline logo is referred to (MIME boundaries and cid: values are per message). The whole
 * message: headers, text and HTML parts, and every attachment byte for byte, the PDF and the
 * workbook included (each rendered twice, by two renderers, and dated by the clock alone).
 */

let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let smtp: TestSmtp;
let store: Store;
let config: Config;
/**
 * One instant for both: the render's "generated" time and the message's Date come from it. An hour
 * ahead, in whole seconds: what the outbox queues (at the real time) is due by it.
 */
const at = Math.floor(Date.now() / 1000) * 1000 + 3_600_000;
const clock: Clock = { now: () => at, sleep: systemClock.sleep };

beforeAll(async () => {
  tmp = tempDir();
  const dir = realpathSync(tmp.dir);
  sandbox = await startSandbox();
  smtp = await startSmtp();
  const logo = join(dir, 'logo.png');
  writeFileSync(logo, solidPng(600, 120, [31, 78, 121]));
  config = configFromObject(
    {
      accounts: [
        { name: 'acme', base_url: sandbox.baseUrl, api_key: sandbox.apiKey, api_secret: sandbox.apiSecret },
      ],
      store: { path: join(dir, 'reportd.sqlite') },
      sync: { query_sets: [102], backfill_runs: 1 },
      output: { dir: join(dir, 'out') },
      smtp: { url: smtp.url, from: 'Reports <reports@example.com>' },
      reports: [
        {
          name: 'weekly',
          query_sets: [102],
          formats: ['pdf', 'xlsx'],
          schedule: { cron: '0 8 * * 1', timezone: 'Europe/Berlin' },
          theme: { logo },
          email: {
            to: ['ceo@example.com'],
            cc: ['cfo@example.com'],
            subject: 'Weekly — {{brand}} — {{run}}',
          },
        },
      ],
      log: { level: 'warn' },
    },
    dir,
  );
  store = await openStore(config.store);
  expect((await runSync({ store, accounts: config.accounts, settings: config.sync })).errors).toEqual([]);
}, 120_000);

afterAll(async () => {
  await store?.close();
  await smtp?.close();
  await sandbox?.close();
  tmp?.cleanup();
});

/**
 * Where two attachments' bytes first differ (none when equal): a failure says which file and where,
 * rather than two checksums.
 */
function firstDifference(a: Buffer, b: Buffer): string | undefined {
  if (a.equals(b)) return undefined;
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  return `${a.length} and ${b.length} bytes, first difference at byte ${at}`;
}

/** The message with what must differ set aside: Message-ID, Date, the inline parts' references. */
function normalised(mail: ParsedMail) {
  const cids = new Map(mail.attachments.filter((a) => a.cid).map((a, i) => [a.cid!, `inline-${i}`]));
  const refs = (html: string) =>
    html.replace(/cid:([^"']+)/g, (_, cid: string) => `cid:${cids.get(cid) ?? cid}`);
  const headers = [...mail.headers.entries()]
    .filter(([name]) => !['message-id', 'date', 'content-type'].includes(name))
    .map(([name, value]) => [name, JSON.stringify(value)]);
  return {
    headers: Object.fromEntries(headers),
    contentType: (mail.headers.get('content-type') as { value: string }).value,
    html: refs(String(mail.html)),
    text: mail.text,
    attachments: mail.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      disposition: a.contentDisposition,
      inline: a.cid ? cids.get(a.cid) : undefined,
      checksum: a.checksum,
      size: a.size,
    })),
  };
}

describe('what `deliver --eml` writes is what the outbox sends', () => {
  it('is the same message, save Message-ID, Date and the inline logo references', async () => {
    const file = join(tmp.dir, 'preview.eml');
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await previewEml(config, config.reports[0]!, file, clock);
      const renderer = createReportRenderer({ config, store, clock, logger: silentLogger, idleMs: 0 });
      const mailer = createSmtpMailer(config.smtp!);
      const outbox = createOutbox(config, { store, logger: silentLogger, clock, mailer, renderer });
      try {
        await deliverNow(
          outbox,
          store,
          config.reports[0]!,
          config,
          { wait: 0 },
          new AbortController().signal,
        );
      } finally {
        mailer.close();
        await renderer.close();
      }
    } finally {
      stdout.mockRestore();
    }
    const [received] = await smtp.waitFor(1);
    const preview = await simpleParser(readFileSync(file));

    // What is set aside really differs, and the rest is really there.
    expect(preview.messageId).not.toBe(received!.messageId);
    expect(preview.date?.getTime()).toBe(at);
    expect(received!.date?.getTime()).toBe(at);
    expect(preview.attachments.map((a) => a.contentType)).toEqual([
      'image/png',
      'application/pdf',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ]);
    expect(preview.html).toContain('Northwind Coffee');
    expect(preview.text).toContain('Northwind Coffee');
    // Every attachment byte for byte (the PDF's dates and the workbook's zip entries are the clock's).
    expect(
      preview.attachments.map((a, i) => [
        a.filename,
        firstDifference(a.content, received!.attachments[i]!.content),
      ]),
    ).toEqual(preview.attachments.map((a) => [a.filename, undefined]));
    expect(normalised(preview)).toEqual(normalised(received!));
  }, 180_000);
});
