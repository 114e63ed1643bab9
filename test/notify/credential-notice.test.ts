import { afterEach, describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/index.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log.js';
import { listIncidents } from '../../src/notify/incidents.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';

/**
 * A wrong API secret during a daemon run (the sandbox over HTTP answers -4): one failure notice,
 * however many passes fail; after ops fix the secret and restart, one recovery notice. Real sync,
 * real store file, real SMTP server; the secret never reaches a notice or the log.
 */
const WRONG_SECRET = 'wrong-secret-never-mailed-51c0';
let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let smtp: TestSmtp;
let daemon: Daemon | undefined;
const logLines: string[] = [];

afterEach(async () => {
  await daemon?.close();
  await sandbox?.close();
  await smtp?.close();
  tmp?.cleanup();
});

function start(secret: string) {
  const config = configFromObject(
    {
      accounts: [{ name: 'acme', base_url: sandbox.baseUrl, api_key: sandbox.apiKey, api_secret: secret }],
      store: { path: 'reportd.sqlite' },
      sync: { query_sets: [101], backfill_runs: 1, schedule: '0 0 1 1 *' },
      smtp: { url: smtp.url, from: 'Reports <reports@example.com>' },
      notify_on_failure: { email: ['ops@example.com'] },
      http: { port: 0, host: '127.0.0.1' },
    },
    tmp.dir,
  );
  const logger = createLogger({ level: 'debug', destination: { write: (l: string) => logLines.push(l) } });
  return startDaemon({ config, logger, pollMs: 200 });
}

describe('a refused credential', () => {
  it('sends one notice while it is refused and one recovery notice once fixed', async () => {
    tmp = tempDir();
    sandbox = await startSandbox();
    smtp = await startSmtp();

    daemon = await start(WRONG_SECRET);
    await daemon.syncNow(); // the start-up pass, then two more: all refused
    await daemon.syncNow();
    await daemon.syncNow();
    await smtp.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 500)); // time for a wrong second notice to show
    expect(smtp.messages.map((m) => m.subject)).toEqual(['[reportd] acme: API credential refused']);
    expect(smtp.messages[0]!.text).toMatch(
      /^\[reportd\] acme: API credential refused\n\naccount acme: the API refused the credential \(-4\): /,
    );
    // The status page says so too, as an open incident and on the account.
    const page = await (await fetch(`${daemon.http!.url}/`)).text();
    expect(page).toContain('acme · credential <span class="state state-refused">refused</span>');
    expect(page).toContain('<strong>credential refused</strong>');
    await daemon.close();

    daemon = await start(sandbox.apiSecret);
    await daemon.syncNow();
    await smtp.waitFor(2);
    await daemon.syncNow();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.messages.map((m) => m.subject)).toEqual([
      '[reportd] acme: API credential refused',
      '[reportd] resolved: acme: API credential refused',
    ]);
    expect(smtp.messages[1]!.text).toMatch(
      /^\[reportd\] resolved: acme: API credential refused\n\nResolved: account acme: the credential is accepted again/,
    );
    const incidents = await listIncidents(daemon.store, 10);
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({ key: 'credential:acme', kind: 'credential_refused' });
    expect(incidents[0]!.clearedAt).not.toBeNull();
    for (const message of smtp.messages)
      expect(`${message.text}${message.subject}`).not.toContain(WRONG_SECRET);
    expect(logLines.join('')).not.toContain(WRONG_SECRET);
  }, 60_000);
});
