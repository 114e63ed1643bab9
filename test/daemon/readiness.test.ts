import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/index.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../delivery/smtp-helpers.js';

/** /readyz follows the last sync pass: a refused API key makes the daemon alive but not ready. */
const WRONG_SECRET = 'wrong-secret-never-logged-7f3a';
let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let daemon: Daemon;
const logLines: string[] = [];

beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox();
  const config = configFromObject(
    {
      accounts: [
        { name: 'acme', base_url: sandbox.baseUrl, api_key: sandbox.apiKey, api_secret: WRONG_SECRET },
      ],
      sync: { query_sets: [101] },
      http: { port: 0, host: '127.0.0.1' },
    },
    tmp.dir,
  );
  const logger = createLogger({ level: 'debug', destination: { write: (l: string) => logLines.push(l) } });
  daemon = await startDaemon({ config, logger });
});
afterAll(async () => {
  await daemon?.close();
  await sandbox?.close();
  tmp?.cleanup();
});

describe('readiness', () => {
  it('answers /healthz 200 but /readyz 503 with the reason after a failed sync', async () => {
    await daemon.syncNow();
    const base = daemon.http!.url;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.text()).toMatch(/^not ready: last sync failed: .+/);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^reportd_sync_passes_total\{outcome="failed"\} [1-9]/m);
    expect(metrics).toMatch(/^reportd_api_requests_total\{outcome="not_authorized"\} [1-9]/m);
    expect(logLines.join('')).not.toContain(WRONG_SECRET);
  });

  it('/readyz?verbose adds the instances under the same first line; every claim of this daemon names it', async () => {
    const base = daemon.http!.url;
    const verbose = await fetch(`${base}/readyz?verbose`);
    expect(verbose.status).toBe(503);
    const lines = (await verbose.text()).split('\n');
    expect(lines[0]).toMatch(/^not ready: last sync failed: /);
    expect(lines[1]).toBe('Instances (1 live of 1 heard from in the last day)');
    expect(lines[2]).toMatch(
      new RegExp(
        `^ {2}live {4}${daemon.instance.id} \\(this one\\) {2}v\\S+ {2}sync,worker,scheduler,http {2}since `,
      ),
    );
    expect(lines.join('\n')).not.toContain(WRONG_SECRET);
    expect(daemon.outbox.worker).toBe(daemon.instance.id);
  });
});
