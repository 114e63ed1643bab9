import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/index.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { tempDir } from '../delivery/smtp-helpers.js';
import { idleSync } from './helpers.js';

/**
 * Issue 25, item 9: `/readyz?verbose` names the instances, their reports' slots and leases, so off
 * loopback it asks for the status page's credentials (and is off with the page when there are none);
 * the plain `/readyz` probe stays open. Listening on 0.0.0.0, asked through 127.0.0.1: what counts is
 * the address the listener is open to, as for the status page.
 */
let tmp: ReturnType<typeof tempDir>;
let daemon: Daemon | undefined;
const TOKEN = 'verbose-token-4b1e';

beforeAll(() => {
  tmp = tempDir();
  return () => tmp.cleanup();
});
afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
});

async function start(http: Record<string, unknown>) {
  const config = configFromObject(
    {
      accounts: [
        { name: 'acme', base_url: 'http://127.0.0.1:1/v2/integration', api_key: 'k', api_secret: 's' },
      ],
      store: { path: 'reportd.sqlite' },
      sync: { query_sets: [101], schedule: '0 0 1 1 *' },
      http: { port: 0, ...http },
    },
    tmp.dir,
  );
  daemon = await startDaemon({ config, sync: idleSync, roles: ['sync', 'http'] });
  return `http://127.0.0.1:${daemon.http!.port}`;
}

describe('/readyz?verbose off loopback', () => {
  it('without http.auth: refused like the status page, naming the setting and no instance', async () => {
    const base = await start({ host: '0.0.0.0' });
    const verbose = await fetch(`${base}/readyz?verbose`);
    expect(verbose.status).toBe(404);
    const body = await verbose.text();
    expect(body).toMatch(/http\.auth is not set/);
    expect(body).not.toContain(daemon!.instance.id);
    // The probe itself stays open (not ready here: the stub sync records no pass, which is beside the point).
    const probe = await fetch(`${base}/readyz`);
    expect(probe.status).toBe(503);
    expect(await probe.text()).toBe('not ready: no sync pass has finished yet\n');
  });

  it('with http.auth: 401 and a challenge without the token, the detail with it', async () => {
    const base = await start({ host: '0.0.0.0', auth: { bearer_token: TOKEN } });
    const refused = await fetch(`${base}/readyz?verbose`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await refused.text()).not.toContain(daemon!.instance.id);
    const allowed = await fetch(`${base}/readyz?verbose`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(allowed.status).toBe(503);
    expect(await allowed.text()).toContain(`${daemon!.instance.id} (this one)`);
  });

  it('on loopback without auth: open, as the status page is', async () => {
    const base = await start({ host: '127.0.0.1' });
    const verbose = await fetch(`${base}/readyz?verbose`);
    expect(verbose.status).toBe(503);
    expect(await verbose.text()).toContain('(this one)');
  });
});
