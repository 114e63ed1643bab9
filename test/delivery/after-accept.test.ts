import { spawn } from 'node:child_process';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import type { ReportEmailConfig } from '../../src/delivery/compose/email.js';
import type { EmailContent } from '../../src/delivery/content.js';
import { mailerFromTransport } from '../../src/delivery/destinations/smtp-mailer.js';
import type { DeliveryRenderer, OutboxOptions } from '../../src/delivery/outbox-options.js';
import { Outbox } from '../../src/delivery/outbox-worker.js';
import { getDelivery } from '../../src/outbox/reads.js';
import { listRecipients } from '../../src/outbox/recipients.js';
import { openStore } from '../../src/store/db.js';
import type { Store } from '../../src/store/sql.js';
import { sqliteAddonOptions } from '../../src/store/sqlite-addon.js';
import { ROOT } from '../helpers/cli.js';
import { fakeFile, startSmtp, type TestSmtp, tempDir } from './smtp-helpers.js';

/**
 * What happens after the SMTP server answered: recording it is the only thing left to do (a busy
 * store, a full disk are waited out, never answered by sending again), and each recipient settles on
 * its own (accepted, deferred and retried with the same Message-ID, refused and named).
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function renderer(dir: string): DeliveryRenderer {
  return {
    async render(delivery): Promise<EmailContent> {
      return {
        brand: 'Northwind Coffee',
        querySet: { id: delivery.querySetId, name: 'Main set' },
        run: { id: delivery.runId, display_name: `Week ${delivery.runId}` },
        kpis: [],
        files: [{ path: fakeFile(dir, `r${delivery.id}.pdf`, 2048), format: 'pdf' }],
      };
    },
  };
}

function report(to: string[]): ReportEmailConfig {
  return { name: 'weekly', email: { to, subject: 'Weekly {{run}}' } };
}

async function setup(
  smtpOptions: Parameters<typeof startSmtp>[0],
  to: string[],
  options: Partial<OutboxOptions> & { dir?: string } = {},
): Promise<{ smtp: TestSmtp; store: Store; box: Outbox; dir: string }> {
  const tmp = tempDir();
  cleanups.push(() => tmp.cleanup());
  const dir = options.dir ?? tmp.dir;
  const smtp = await startSmtp(smtpOptions);
  cleanups.push(() => smtp.close());
  const store = await openStore(join(dir, 'reportd.sqlite'));
  cleanups.push(() => store.close());
  const transport = nodemailer.createTransport({ url: smtp.url, ignoreTLS: true } as never);
  const box = new Outbox({
    store,
    renderer: renderer(tmp.dir),
    mailer: mailerFromTransport(transport),
    from: 'Reports <reports@example.com>',
    reports: [report(to)],
    ...options,
  });
  return { smtp, store, box, dir };
}

/** A second real process that holds the store's write lock for `ms` (past the 5 s busy_timeout). */
function holdWriteLock(path: string, ms: number): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const Database = require('better-sqlite3');
       const db = new Database(process.argv[1], ${JSON.stringify(sqliteAddonOptions())});
       db.exec('BEGIN IMMEDIATE');
       process.stdout.write('locked\\n');
       setTimeout(() => { db.exec('COMMIT'); db.close(); }, Number(process.argv[2]));`,
      path,
      String(ms),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  cleanups.push(() => child.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => String(chunk).includes('locked') && resolve());
    child.on('exit', (code) => reject(new Error(`lock holder exited early (${code})`)));
  });
}

const key = { report: 'weekly', querySetId: 101, runId: 10, account: 'acme' };

describe('after the SMTP server accepted', () => {
  it('a store locked by another process for 7 s is waited out: recorded sent, never emailed again', async () => {
    let storePath = '';
    const env = await setup(
      // The server stores the message, then, before it answers 250, another process takes the write lock.
      { afterStore: () => holdWriteLock(storePath, 7_000) },
      ['ceo@example.com'],
    );
    storePath = env.store.location;
    await env.box.enqueue(key);
    const outcome = await env.box.runOnce();
    expect(outcome?.result).toBe('sent');
    expect(await getDelivery(env.store, 1)).toMatchObject({ state: 'sent', attempts: 1, lastError: null });
    expect(await env.box.drain()).toEqual([]);
    expect(env.smtp.messages).toHaveLength(1);
  }, 30_000);

  it("the server's answer is recorded even when the recipients' rows are gone (a crash lost their commit)", async () => {
    let store: Store | undefined;
    const env = await setup(
      // While the message is at the server, the rows written before sending vanish, as they do when a
      // PostgreSQL without synchronous_commit crashes right after acknowledging them.
      { afterStore: async () => void (await store!.run('DELETE FROM delivery_recipients')) },
      ['ceo@example.com'],
    );
    store = env.store;
    await env.box.enqueue(key);
    expect((await env.box.runOnce())?.result).toBe('sent');
    expect(await getDelivery(env.store, 1)).toMatchObject({ state: 'sent', lastError: null });
    expect((await listRecipients(env.store, 1)).map((r) => [r.recipient, r.state])).toEqual([
      ['ceo@example.com', 'accepted'],
    ]);
    expect(env.smtp.messages).toHaveLength(1);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'a full disk when the answer comes is waited out: recorded once space is back, one message',
    async () => {
      const tmp = tempDir();
      cleanups.push(() => tmp.cleanup());
      const mount = join(tmp.dir, 'small');
      const { execFileSync } = await import('node:child_process');
      execFileSync('mkdir', ['-p', mount]);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mount]);
      cleanups.push(() => execFileSync('umount', ['-l', mount]));
      const filler = join(mount, 'filler');
      const env = await setup(
        {
          // Fill the disk to the last byte between storing the message and answering 250; free it 1.5 s later.
          async afterStore() {
            const fd = openSync(filler, 'w');
            for (const size of [65_536, 4_096, 1]) {
              try {
                for (;;) writeSync(fd, Buffer.alloc(size));
              } catch {}
            }
            closeSync(fd);
            setTimeout(() => rmSync(filler, { force: true }), 1_500);
          },
        },
        ['ceo@example.com'],
        { dir: mount },
      );
      await env.box.enqueue(key);
      const outcome = await env.box.runOnce();
      expect(outcome?.result).toBe('sent');
      expect(await getDelivery(env.store, 1)).toMatchObject({ state: 'sent', attempts: 1 });
      expect(env.smtp.messages).toHaveLength(1);
    },
    30_000,
  );
});

describe('per recipient', () => {
  it('a recipient deferred with 450 is retried alone with the same Message-ID; a 550 one is named', async () => {
    const clock = new FakeClock(Date.UTC(2026, 3, 6, 8));
    let greylisted = 1;
    const env = await setup(
      {
        rcptReply(address) {
          if (address === 'cfo@example.com' && greylisted-- > 0) {
            return { code: 450, text: 'Greylisted, try again in a minute' };
          }
          if (address === 'gone@example.com') return { code: 550, text: 'No such user' };
          return undefined;
        },
      },
      ['ceo@example.com', 'CFO <cfo@example.com>', 'gone@example.com'],
      { clock },
    );
    await env.box.enqueue(key);
    const first = await env.box.runOnce();
    expect(first?.result).toBe('retry');
    const states = async () => (await listRecipients(env.store, 1)).map((r) => [r.recipient, r.state]);
    expect(await states()).toEqual([
      ['ceo@example.com', 'accepted'],
      ['cfo@example.com', 'deferred'],
      ['gone@example.com', 'refused'],
    ]);
    expect(env.smtp.envelopes).toEqual([['ceo@example.com']]);

    await clock.advance(30_000);
    const second = await env.box.runOnce();
    expect(second?.result).toBe('sent');
    expect(env.smtp.envelopes).toEqual([['ceo@example.com'], ['cfo@example.com']]);
    expect(env.smtp.messages[1]!.messageId).toBe(env.smtp.messages[0]!.messageId);
    const row = (await getDelivery(env.store, 1))!;
    expect(row.state).toBe('sent');
    expect(row.lastError).toMatch(/^refused: gone@example\.com \(550 No such user\)$/);
    await clock.advance(60 * 60_000);
    expect(await env.box.drain()).toEqual([]);
    expect(env.smtp.messages).toHaveLength(2);
  });

  it('every recipient deferred (452 mailbox full) is a retry, not a failure', async () => {
    const clock = new FakeClock(Date.UTC(2026, 3, 6, 8));
    let full = 1;
    const env = await setup(
      { rcptReply: () => (full-- > 0 ? { code: 452, text: 'Mailbox full' } : undefined) },
      ['ceo@example.com'],
      { clock },
    );
    await env.box.enqueue(key);
    expect((await env.box.runOnce())?.result).toBe('retry');
    expect((await listRecipients(env.store, 1))[0]).toMatchObject({
      state: 'deferred',
      reply: '452 Mailbox full',
    });
    await clock.advance(30_000);
    expect((await env.box.runOnce())?.result).toBe('sent');
    expect(env.smtp.envelopes).toEqual([['ceo@example.com']]);
  });
});
