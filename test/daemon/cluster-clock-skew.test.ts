import type { ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { catalogEndpoints } from '../../src/api/endpoints.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { listSnapshots } from '../../src/store/snapshots.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { testEngine } from '../helpers/test-store.js';
import { type TempStore, tempStore } from '../sync/helpers/temp-store.js';

/**
 * Issue 25, item 5: two `reportd daemon` processes on one PostgreSQL store and one API key, the second
 * under libfaketime with its clock 120 s ahead. On host clocks the second saw the first's account
 * lease as lapsed and took it from a live holder (whose pass then failed), and counted the first's
 * requests as 120 s old, so together they overran the key's window (a -145 from the sandbox, which
 * enforces it). On the database's clock: no -145, no lease taken from a live holder, each payload
 * fetched once, and the skew said once in the skewed daemon's log and in `reportd status`.
 */
const onPostgres = testEngine() === 'postgres';
const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

let temp: TempStore | undefined;
let sandbox: Sandbox | undefined;
const daemons: { child: ChildProcess; logs: string }[] = [];

afterAll(async () => {
  for (const d of daemons) if (d.child.exitCode === null) d.child.kill('SIGKILL');
  await sandbox?.close();
  await temp?.cleanup();
});

function startDaemon(config: string, env: NodeJS.ProcessEnv = {}) {
  const daemon = { child: spawnCli(['daemon', '--config', config, '--roles', 'sync'], { env }), logs: '' };
  daemon.child.stdout?.on('data', (chunk) => {
    daemon.logs += chunk;
  });
  daemon.child.stderr?.on('data', (chunk) => {
    daemon.logs += chunk;
  });
  daemons.push(daemon);
  return daemon;
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 120_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what}\n${daemons.map((d) => d.logs).join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!onPostgres)('a daemon whose clock is 120 s ahead, on PostgreSQL', () => {
  it('never draws a -145 nor takes a live holder’s lease, and the skew is reported', async () => {
    if (!existsSync(LIBFAKETIME)) {
      throw new Error(`${LIBFAKETIME} is missing: install faketime (scripts/install.sh does)`);
    }
    temp = await tempStore();
    // One key for both accounts and both daemons: 30 requests per 2 s, enforced by the sandbox.
    const rate = { requests: 30, windowMs: 2000 };
    sandbox = await startSandbox({ rate });
    const account = (name: string) =>
      `  - { name: ${name}, base_url: "${sandbox!.baseUrl}", api_key: ${sandbox!.apiKey}, api_secret: ${sandbox!.apiSecret}, rate_limit: { requests: ${rate.requests}, window_seconds: ${rate.windowMs / 1000} }, concurrency: 4 }`;
    const config = (name: string, accounts: string[]) => {
      const file = join(temp!.dir, `${name}.yaml`);
      writeFileSync(
        file,
        [
          'accounts:',
          ...accounts.map(account),
          temp!.configLine,
          // At start only (runAtStart), never again during the test.
          'sync: { query_sets: [101], backfill_runs: 4, schedule: "0 0 1 1 *" }',
          'log: { level: info }',
          '',
        ].join('\n'),
      );
      return file;
    };
    // The first syncs east; the second east and west: it fetches west on the same key while the
    // first holds east, then finds east done.
    const first = startDaemon(config('first', ['east']));
    await until(
      async () =>
        (await temp!.store.all('SELECT account FROM account_leases WHERE account = ?', ['east'])).length > 0,
      'the first daemon to hold the lease of east',
    );
    const second = startDaemon(config('second', ['east', 'west']), {
      LD_PRELOAD: LIBFAKETIME,
      FAKETIME: '+120s',
      // Timers run on the monotonic clock: a constant offset changes nothing there, leave it alone.
      DONT_FAKE_MONOTONIC: '1',
    });
    const complete = async (name: string) =>
      (await listSnapshots(temp!.store, { account: name, querySetId: 101 })).length;
    await until(
      async () => (await complete('east')) === 4 && (await complete('west')) === 4,
      'both accounts synced',
    );
    // Both passes over (the second looked at east once the first let it go): no lease is held.
    await until(
      async () => (await temp!.store.all('SELECT account FROM account_leases')).length === 0,
      'every lease to be given back',
    );

    expect(sandbox.stats.byErrorCode['-145'] ?? 0).toBe(0);
    // Nobody took a lease from its live holder: no pass was told so, and each payload came once.
    for (const d of daemons) expect(d.logs).not.toMatch(/took over its sync/);
    const catalog = new Set(Object.values(catalogEndpoints).map((endpoint) => endpoint.key));
    const metric = Object.entries(sandbox.stats.byEndpoint)
      .filter(([key]) => !catalog.has(key))
      .reduce((sum, [, n]) => sum + n, 0);
    expect(metric).toBe(2 * 4 * 34);
    // The skewed host says it once; the other one does not.
    expect(second.logs.match(/clock is 12\d s ahead of the database's/g)).toHaveLength(1);
    expect(first.logs).not.toMatch(/clock is .* the database's/);

    const status = await runCli(['status', '--config', join(temp.dir, 'first.yaml')]);
    expect(status.code, status.stderr).toBe(0);
    const lines = status.stdout.split('\n');
    const skewed = lines.filter((line) => /clock 12\d s ahead of the database/.test(line));
    expect(skewed).toHaveLength(1);
    expect(skewed[0]).toContain(`:${second.child.pid}:`);
  }, 300_000);
});
