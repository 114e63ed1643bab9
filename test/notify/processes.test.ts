import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listIncidents } from '../../src/notify/incidents.js';
import { listNotices } from '../../src/outbox/notices.js';
import { openStore } from '../../src/store/db.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { bundledFixture } from '../helpers/bundled-fixture.js';

/**
 * Two daemons on one store see the same failure: three real processes race to open the same
 * incident and send what is due, then race to clear it. One incident, one notice, one recovery.
 */
const FIXTURE = fileURLToPath(new URL('./fixtures/incident-racer.ts', import.meta.url));
let tmp: ReturnType<typeof tempDir>;
let smtp: TestSmtp;

beforeAll(async () => {
  tmp = tempDir();
  smtp = await startSmtp();
});
afterAll(async () => {
  await smtp?.close();
  tmp?.cleanup();
});

function race(storePath: string, phase: 'open' | 'clear', count: number) {
  const startAt = Date.now() + 2_500; // after every process has loaded
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<{ won: boolean; sent: number }>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            [...bundledFixture(FIXTURE), storePath, smtp.url, phase, String(startAt)],
            {
              stdio: ['ignore', 'pipe', 'inherit'],
            },
          );
          let out = '';
          child.stdout.on('data', (chunk) => {
            out += chunk;
          });
          child.on('error', reject);
          child.on('close', (code) =>
            code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${code}`)),
          );
        }),
    ),
  );
}

describe('incidents across processes', () => {
  it('open once, notify once, clear once', async () => {
    const storePath = join(tmp.dir, 'reportd.sqlite');
    await (await openStore(storePath)).close(); // migrated before the race
    const opened = await race(storePath, 'open', 3);
    expect(opened.filter((r) => r.won)).toHaveLength(1);
    expect(opened.reduce((n, r) => n + r.sent, 0)).toBe(1);
    const cleared = await race(storePath, 'clear', 3);
    expect(cleared.filter((r) => r.won)).toHaveLength(1);
    expect(cleared.reduce((n, r) => n + r.sent, 0)).toBe(1);
    await smtp.waitFor(2);
    expect(smtp.messages.map((m) => m.subject)).toEqual([
      '[reportd] acme: API credential refused',
      '[reportd] resolved: acme: API credential refused',
    ]);
    const store = await openStore(storePath);
    try {
      expect(await listIncidents(store, 10)).toHaveLength(1);
      expect((await listNotices(store)).map((n) => [n.kind, n.state, n.attempts])).toEqual([
        ['opened', 'sent', 1],
        ['cleared', 'sent', 1],
      ]);
    } finally {
      await store.close();
    }
  }, 60_000);
});
