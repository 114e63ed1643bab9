import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/index.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { idleSync, stubRenderer } from '../daemon/helpers.js';
import { tempDir } from '../delivery/smtp-helpers.js';

/**
 * The status page is a window on the company's data: on a listener that is not loopback it is served
 * only behind `http.auth`, and without it nothing the listener says names a report. The probes
 * (/healthz, /readyz, /metrics) stay open either way.
 */
const TOKEN = 'status-token-0123456789abcdef';
const REPORT = 'board-secret-acquisition-report';
let tmp: ReturnType<typeof tempDir>;
let daemon: Daemon | undefined;

afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
  tmp?.cleanup();
});

async function start(auth?: Record<string, string>) {
  tmp = tempDir();
  const config = configFromObject(
    {
      accounts: [
        {
          name: 'main',
          base_url: 'http://127.0.0.1:1/v2/integration',
          api_key: 'k',
          api_secret: 'access-secret',
        },
      ],
      store: { path: 'reportd.sqlite' },
      smtp: { host: '127.0.0.1', port: 1, from: 'reports@example.com' },
      http: { port: 0, host: '0.0.0.0', ...(auth ? { auth } : {}) },
      reports: [{ name: REPORT, schedule: { cron: '0 8 * * 1' }, email: { to: ['ceo@example.com'] } }],
    },
    tmp.dir,
  );
  daemon = await startDaemon({ config, sync: idleSync, renderer: stubRenderer(tmp.dir), pollMs: 3_600_000 });
  await daemon.syncNow();
  // 0.0.0.0 is reached through 127.0.0.1 here; what counts is the address the listener is bound to.
  return daemon.http!.url;
}

describe('the status page on 0.0.0.0', () => {
  it('without http.auth: no page, no download, no report name anywhere; probes still open', async () => {
    const base = await start();
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(404);
    expect(await page.text()).toBe(
      'the status page is off: http.host 0.0.0.0 is not a loopback address and http.auth is not set\n',
    );
    expect((await fetch(`${base}/download/0/pdf`)).status).toBe(404);
    for (const path of ['/', '/download/0/pdf', '/healthz', '/readyz', '/metrics', '/report', '/?x=1']) {
      const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      const body = await res.text();
      expect(body, path).not.toContain(REPORT);
      expect(JSON.stringify([...res.headers]), path).not.toContain(REPORT);
    }
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/metrics`)).status).toBe(200);
  });

  it('with a bearer token: 401 without it or with a wrong one, 200 with it', async () => {
    const base = await start({ bearer_token: TOKEN });
    const anonymous = await fetch(`${base}/`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="reportd"');
    const anonymousBody = await anonymous.text();
    expect(anonymousBody).not.toContain(REPORT);
    expect(
      (await fetch(`${base}/`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status,
    ).toBe(401);
    expect((await fetch(`${base}/download/0/pdf`)).status).toBe(401);
    const ok = await fetch(`${base}/`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain(REPORT);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it('with basic auth from a password file', async () => {
    tmp = tempDir();
    const file = join(tmp.dir, 'status-password');
    writeFileSync(file, 'basic-password-9f2c\n');
    const base = await start({ username: 'ops', password_file: file });
    const basic = (user: string, password: string) => ({
      authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
    });
    const anonymous = await fetch(`${base}/`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic realm="reportd"/);
    expect((await fetch(`${base}/`, { headers: basic('ops', 'nope') })).status).toBe(401);
    expect((await fetch(`${base}/`, { headers: basic('root', 'basic-password-9f2c') })).status).toBe(401);
    expect((await fetch(`${base}/`, { headers: basic('ops', 'basic-password-9f2c') })).status).toBe(200);
  });
});
