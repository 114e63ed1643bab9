import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listDeliveries } from '../../src/outbox/reads.js';
import { openStore } from '../../src/store/db.js';
import { bundledFixture } from '../helpers/bundled-fixture.js';
import { startSmtp, type TestSmtp, tempDir } from './smtp-helpers.js';

/** Real processes killed with SIGKILL at a chosen step, then a fresh process on the same store. */
const FIXTURE = fileURLToPath(new URL('./fixtures/outbox-worker.ts', import.meta.url));
const LEASE_MS = 1_500;

let tmp: ReturnType<typeof tempDir>;
let smtp: TestSmtp;
let storePath: string;
beforeEach(async () => {
  tmp = tempDir();
  smtp = await startSmtp();
  storePath = join(tmp.dir, 'reportd.sqlite');
});
afterEach(async () => {
  await smtp.close();
  tmp.cleanup();
});

function worker(mode: string): {
  child: ChildProcess;
  output: Promise<string>;
  exit: Promise<NodeJS.Signals | null>;
} {
  const child = spawn(
    process.execPath,
    [...bundledFixture(FIXTURE), storePath, smtp.url, mode, String(LEASE_MS), tmp.dir],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let text = '';
  const output = new Promise<string>((resolve) => {
    child.stdout!.on('data', (chunk) => {
      text += chunk;
      if (mode === 'hang-after-claim' && text.includes('claimed')) resolve(text);
    });
    child.on('exit', () => resolve(text));
  });
  const exit = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  return { child, output, exit };
}

async function rows() {
  const store = await openStore(storePath);
  try {
    return await listDeliveries(store);
  } finally {
    await store.close();
  }
}

describe('outbox across kill -9', () => {
  it('killed between claim and send, then restarted: exactly one message arrives', async () => {
    const first = worker('hang-after-claim');
    expect(await first.output).toContain('claimed');
    // Alive past two leases: its heartbeat keeps the claim (a render may outlast the lease).
    const claimedUntil = (await rows())[0]!.leaseUntil!;
    await new Promise((resolve) => setTimeout(resolve, 2 * LEASE_MS));
    // (Renewed at least once: a bound on "now" too would make the test depend on the machine's load.)
    expect((await rows())[0]!.leaseUntil!).toBeGreaterThan(claimedUntil);
    first.child.kill('SIGKILL');
    expect(await first.exit).toBe('SIGKILL');
    expect((await rows())[0]).toMatchObject({ state: 'rendering', attempts: 1 });
    expect(smtp.messages).toHaveLength(0);

    const second = worker('normal');
    const output = await second.output;
    expect(output).toContain('"result":"sent"');
    expect(smtp.messages).toHaveLength(1);
    expect((await rows())[0]).toMatchObject({ state: 'sent', attempts: 2 });
  });

  it('killed after the server accepted but before marking sent: resent with the same Message-ID (never lost)', async () => {
    const first = worker('die-after-accept');
    expect(await first.exit).toBe('SIGKILL');
    expect(smtp.messages).toHaveLength(1);
    expect((await rows())[0]).toMatchObject({ state: 'sending' });

    const second = worker('normal');
    expect(await second.output).toContain('"result":"sent"');
    // The documented trade-off: a second copy, recognisable as the same message.
    expect(smtp.messages).toHaveLength(2);
    expect(smtp.messages[1]!.messageId).toBe(smtp.messages[0]!.messageId);
    expect((await rows())[0]).toMatchObject({ state: 'sent', attempts: 2 });
  });
});
