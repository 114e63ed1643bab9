import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/index.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { idleSync, stubRenderer } from '../daemon/helpers.js';
import { tempDir } from '../delivery/smtp-helpers.js';
import { foreignHeaders, rawRequest } from '../helpers/raw-http.js';

/**
 * The daemon's listener on loopback, where the status page needs no credentials: a page whose name
 * an attacker points at 127.0.0.1 (DNS rebinding) names itself in `Host`, and is refused before any
 * route, probes included; so is a request from another site's `Origin`. The names operators use are
 * served: the address, localhost, a pod's IP (how kubelets and scrapers ask) and a configured
 * service name.
 */
const REPORT = 'board-secret-acquisition-report';
const PATHS = ['/', '/healthz', '/readyz', '/metrics', '/download/0/pdf'];
let tmp: ReturnType<typeof tempDir>;
let daemon: Daemon;
let base: string;

beforeAll(async () => {
  tmp = tempDir();
  const config = configFromObject(
    {
      accounts: [
        { name: 'main', base_url: 'http://127.0.0.1:1/v2/integration', api_key: 'k', api_secret: 's' },
      ],
      store: { path: 'reportd.sqlite' },
      smtp: { host: '127.0.0.1', port: 1, from: 'reports@example.com' },
      http: { port: 0, host: '127.0.0.1', allowed_hosts: ['reportd.monitoring.svc', '.example.org'] },
      reports: [{ name: REPORT, schedule: { cron: '0 8 * * 1' }, email: { to: ['ceo@example.com'] } }],
    },
    tmp.dir,
  );
  daemon = await startDaemon({ config, sync: idleSync, renderer: stubRenderer(tmp.dir), pollMs: 3_600_000 });
  await daemon.syncNow();
  base = daemon.http!.url;
});

afterAll(async () => {
  await daemon?.close();
  tmp?.cleanup();
});

describe('the status listener checks Host and Origin', () => {
  it('refuses a foreign Host with 421 and a foreign Origin with 403 on every path, naming no report', async () => {
    const foreign = foreignHeaders(base);
    for (const path of PATHS) {
      const host = await rawRequest(`${base}${path}`, { headers: foreign.host });
      expect(host.status, path).toBe(421);
      expect(host.body).toMatch(/^Host "evil\.example:\d+" is not a name of this server/);
      const origin = await rawRequest(`${base}${path}`, { headers: foreign.origin });
      expect(origin.status, path).toBe(403);
      for (const body of [host.body, origin.body]) expect(body).not.toContain(REPORT);
    }
    // A subdomain trick and a lookalike are foreign too; so is an origin that is only the same port.
    const port = new URL(base).port;
    for (const name of [`reportd.monitoring.svc.evil.example:${port}`, `evilexample.org:${port}`]) {
      expect((await rawRequest(`${base}/metrics`, { headers: { host: name } })).status, name).toBe(421);
    }
    const sibling = { host: `127.0.0.1:${port}`, origin: 'http://127.0.0.1:9' };
    expect((await rawRequest(`${base}/`, { headers: sibling })).status).toBe(403);
    expect((await rawRequest(`${base}/`, { headers: { ...sibling, origin: 'null' } })).status).toBe(403);
  });

  it('serves the names operators use: the address, localhost, a pod IP, a configured name', async () => {
    const port = new URL(base).port;
    const hosts = [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `10.42.0.17:${port}`,
      `reportd.monitoring.svc:${port}`,
      `status.example.org`,
    ];
    for (const host of hosts) {
      for (const path of ['/', '/healthz', '/readyz', '/metrics']) {
        const res = await rawRequest(`${base}${path}`, { headers: { host } });
        // /readyz answers by its route: not ready here, as no sync pass runs in this test.
        if (path === '/readyz') expect(res.body, `${host}${path}`).toMatch(/^not ready: /);
        else expect(res.status, `${host}${path}`).toBe(200);
      }
    }
    const page = await rawRequest(`${base}/`, {
      headers: { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` },
    });
    expect(page.status).toBe(200);
    expect(page.body).toContain(REPORT);
    // Behind a TLS proxy with the configured name: its https origin is the server's own.
    const proxied = await rawRequest(`${base}/`, {
      headers: { host: 'status.example.org', origin: 'https://status.example.org' },
    });
    expect(proxied.status).toBe(200);
  });
});
