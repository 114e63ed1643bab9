import type { ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestRuns } from '../../src/delivery/due.js';
import { enqueueDelivery } from '../../src/outbox/enqueue.js';
import { listDeliveries } from '../../src/outbox/reads.js';
import { openStore } from '../../src/store/db.js';
import { type DeliveryCliEnv, startDeliveryCliEnv } from '../delivery/cli-env.js';
import { runCli, spawnCli } from '../helpers/cli.js';

/**
 * `reportd daemon` as a real process: SIGTERM while the SMTP server is still answering DATA waits
 * for the answer and records it (no resend after restart); a store file deleted or replaced under it
 * fails /readyz with one line. `reportd deliver` given SIGTERM mid-answer waits for it the same way.
 * The store is synced once (`reportd sync`) and each test that needs a synced store gets a copy of it.
 */
let env: DeliveryCliEnv;
let holdData: (() => Promise<void>) | undefined;
let dataStarted: () => void = () => {};

beforeAll(async () => {
  env = await startDeliveryCliEnv({ afterStore: () => holdData?.() ?? Promise.resolve() });
  expect((await env.reportd(configFor('synced'), 'sync')).code).toBe(0);
}, 60_000);
afterAll(() => env?.close());

function configFor(name: string, extra = ''): string {
  return env.writeConfig(
    `${name}.yaml`,
    `${env.accountsYaml}store: { path: ./${name}/reportd.sqlite }
sync: { query_sets: [102], backfill_runs: 1 }
smtp: { url: "${env.smtp.url}", from: "Reports <reports@example.com>"${extra} }
reports:
  - name: weekly
    query_sets: [102]
    formats: [xlsx]
    email: { to: [ceo@example.com], subject: "Weekly {{run}}" }
    schedule: { cron: "0 8 * * 1", timezone: UTC }
http: { port: 0, host: 127.0.0.1 }
log: { level: info }
`,
  );
}

/** The config `name` on a copy of the store synced in beforeAll (its WAL too, should one be left). */
function syncedConfigFor(name: string): string {
  mkdirSync(join(env.dir, name));
  for (const suffix of ['', '-wal']) {
    const from = join(env.dir, 'synced', `reportd.sqlite${suffix}`);
    if (existsSync(from)) copyFileSync(from, join(env.dir, name, `reportd.sqlite${suffix}`));
  }
  return configFor(name);
}

function startDaemon(config: string): {
  child: ChildProcess;
  url: Promise<string>;
  logs: () => string;
  exit: Promise<number | null>;
} {
  const child = spawnCli(['daemon', '--config', config], { cwd: env.dir });
  let logs = '';
  const url = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      logs += chunk;
      const match = /"url":"(http:\/\/[^"]+)".*http listening/.exec(logs);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', () => reject(new Error(`daemon exited early:\n${logs}`)));
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, url, logs: () => logs, exit };
}

async function readyz(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: await res.text() };
}

async function until<T>(what: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('reportd daemon process', () => {
  it('SIGTERM while the server holds its answer to DATA for 12 s: waits, records it sent, exits 0; no resend', async () => {
    const config = syncedConfigFor('grace');
    // A delivery already due when the daemon starts (as after a scheduled slot).
    const store = await openStore(join(env.dir, 'grace', 'reportd.sqlite'));
    const [run] = await latestRuns(store, { name: 'weekly', query_sets: [102] } as never, [{ name: 'acme' }]);
    await enqueueDelivery(
      store,
      { report: 'weekly', querySetId: run!.querySetId, runId: run!.runId, account: 'acme' },
      Date.now(),
    );
    await store.close();

    const started = new Promise<void>((resolve) => {
      dataStarted = resolve;
    });
    holdData = async () => {
      dataStarted();
      await new Promise((resolve) => setTimeout(resolve, 12_000));
    };
    const before = env.smtp.messages.length;
    const daemon = startDaemon(config);
    await daemon.url;
    await started;
    daemon.child.kill('SIGTERM');
    expect(await daemon.exit).toBe(0);
    holdData = undefined;
    expect(env.smtp.messages).toHaveLength(before + 1);
    const check = await openStore(join(env.dir, 'grace', 'reportd.sqlite'));
    expect((await listDeliveries(check)).map((d) => d.state)).toEqual(['sent']);
    await check.close();
    const again = await env.reportd(config, 'deliver', '--report', 'weekly');
    expect(again.stdout).toMatch(/^already delivered: /);
    expect(env.smtp.messages).toHaveLength(before + 1);
  }, 120_000);

  it('reportd deliver sent SIGTERM while the server holds its answer: waits for it, says sent, exits 0', async () => {
    const config = syncedConfigFor('deliver-term');
    const started = new Promise<void>((resolve) => {
      dataStarted = resolve;
    });
    holdData = async () => {
      dataStarted();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
    };
    const before = env.smtp.messages.length;
    let child!: ChildProcess;
    const done = runCli(['deliver', '--report', 'weekly', '--config', config], {
      cwd: env.dir,
      env: { REPORTD_LOG_LEVEL: 'warn' },
      onSpawn: (c) => {
        child = c;
      },
    });
    await started;
    child.kill('SIGTERM');
    const result = await done;
    holdData = undefined;
    expect(result.stdout).toMatch(/^sent: report weekly, query set 102, run \d+ to ceo@example\.com/);
    expect(result.code).toBe(0);
    expect(env.smtp.messages).toHaveLength(before + 1);
    expect((await env.reportd(config, 'deliver', '--report', 'weekly')).stdout).toMatch(
      /^already delivered: /,
    );
  }, 120_000);

  it('a store file deleted, or replaced, under it fails /readyz with one line saying so', async () => {
    const config = configFor('watched');
    const daemon = startDaemon(config);
    try {
      const url = await daemon.url;
      await until(
        () => readyz(url),
        (r) => r.status === 200,
      );
      const path = join(env.dir, 'watched', 'reportd.sqlite');
      copyFileSync(path, `${path}.copy`);
      renameSync(`${path}.copy`, path);
      expect(await readyz(url)).toEqual({
        status: 503,
        body: `not ready: store file ${path} was replaced while this process ran; restart the daemon to open the new one\n`,
      });
      rmSync(path);
      expect(await readyz(url)).toEqual({
        status: 503,
        body: `not ready: store file ${path} was deleted while this process ran; restart the daemon to open a new one\n`,
      });
      expect(daemon.logs()).toMatch(/was replaced while this process ran.*taking no more work/);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exit;
    }
  }, 120_000);
});
