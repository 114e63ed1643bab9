import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/index.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../delivery/smtp-helpers.js';

/** reportd_api_requests_total, scraped over HTTP, counts every request the sandbox saw exactly once. */
let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let daemon: Daemon;

beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox({ rate: { requests: 300, windowMs: 1000 } });
  const config = configFromObject(
    {
      accounts: [
        {
          name: 'acme',
          base_url: sandbox.baseUrl,
          api_key: sandbox.apiKey,
          api_secret: sandbox.apiSecret,
          rate_limit: { requests: 300, window_seconds: 1 },
        },
      ],
      sync: { query_sets: [101], backfill_runs: 1, schedule: '0 0 1 1 *' },
      http: { port: 0, host: '127.0.0.1' },
    },
    tmp.dir,
  );
  daemon = await startDaemon({ config, logger: createLogger({ level: 'silent' }) });
});
afterAll(async () => {
  await daemon?.close();
  await sandbox?.close();
  tmp?.cleanup();
});

async function countedRequests(): Promise<{ total: number; text: string }> {
  const text = await (await fetch(`${daemon.http!.url}/metrics`)).text();
  const values = [...text.matchAll(/^reportd_api_requests_total\{outcome="[a-z_]+"\} (\d+)$/gm)];
  return { total: values.reduce((sum, match) => sum + Number(match[1]), 0), text };
}

describe('reportd_api_requests_total', () => {
  it('counts each request once, pass after pass (no "unclassified" copy)', async () => {
    await daemon.syncNow();
    // A published run makes the second pass fetch again, so both passes have requests to count.
    sandbox.publishRun(101);
    await daemon.syncNow();
    await daemon.syncNow();
    const { total, text } = await countedRequests();
    expect(sandbox.stats.total).toBeGreaterThan(34 * 2);
    expect(total).toBe(sandbox.stats.total);
    expect(text).not.toContain('unclassified');
  });
});
