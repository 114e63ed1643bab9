/**
 * `npm run bench:store`: the same work on SQLite and on PostgreSQL, and their ratio.
 *
 *   sync:   every run the sandbox company publishes plus two more of set 103 (about 20 snapshots, 34
 *           payloads each, plus the catalog; the first line prints the count), with a rate window
 *           wide enough never to wait, so the time is the client's and the store's;
 *   outbox: 200 rows enqueued, then drained (claim → sending → sent) by 1 worker, and by 4 workers
 *           at once, each with its own connection (PostgreSQL: SKIP LOCKED; SQLite: the file's lock).
 *
 * PostgreSQL is REPORTD_BENCH_DATABASE_URL (a server whose user may CREATE DATABASE), or else a
 * throwaway cluster started like the tests' (Debian's postgresql package).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { claimNextDelivery, markSending, markSent } from '../src/outbox/deliveries.js';
import { enqueueDelivery } from '../src/outbox/enqueue.js';
import { startSandbox } from '../src/sandbox/server.js';
import { openStore, type StoreTarget } from '../src/store/db.js';
import type { Store } from '../src/store/sql.js';
import { runSync } from '../src/sync/sync.js';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.js';

const ROWS = 200;
const WORKERS = 4;

const dir = mkdtempSync(join(tmpdir(), 'reportd-bench-store-'));
const cluster = process.env.REPORTD_BENCH_DATABASE_URL ? undefined : await startPostgresCluster();
const adminUrl = process.env.REPORTD_BENCH_DATABASE_URL ?? cluster!.adminUrl;

async function freshDatabase(): Promise<string> {
  const name = `reportd_bench_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`CREATE DATABASE ${name} TEMPLATE template0`);
  await client.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function timeSync(target: StoreTarget): Promise<{ ms: number; snapshots: number; requests: number }> {
  const sandbox = await startSandbox({ rate: { requests: 100_000, windowMs: 1000 } });
  // Two more runs (of the set that has none yet) make the 20 snapshots the bench is stated in.
  sandbox.publishRun(103);
  sandbox.publishRun(103);
  const store = await openStore(target);
  try {
    const summary = await runSync({
      store,
      accounts: [
        {
          name: 'bench',
          base_url: sandbox.baseUrl,
          api_key: sandbox.apiKey,
          api_secret: sandbox.apiSecret,
          rate_limit: { requests: 100_000, window_seconds: 1 },
          concurrency: 8,
          timeout_seconds: 30,
        },
      ],
      settings: { query_sets: 'all', backfill_runs: 11, catalog_ttl_minutes: 60, max_payload_retries: 3 },
    });
    if (summary.errors.length) throw new Error(summary.errors.map((e) => e.message).join('; '));
    return { ms: summary.durationMs, snapshots: summary.snapshotsCompleted, requests: summary.requests };
  } finally {
    await store.close();
    await sandbox.close();
  }
}

async function drain(stores: Store[]): Promise<number> {
  const started = performance.now();
  let sent = 0;
  await Promise.all(
    stores.map(async (store, index) => {
      const worker = `bench-${index}`;
      for (;;) {
        const now = Date.now();
        const claimed = await claimNextDelivery(store, { worker, now, leaseMs: 60_000, maxAttempts: 5 });
        if (!claimed) return;
        const fence = { id: claimed.delivery.id, token: claimed.delivery.token ?? '' };
        if (!(await markSending(store, fence, now, 60_000))) continue;
        if (await markSent(store, fence, Date.now(), null)) sent++;
      }
    }),
  );
  if (sent !== ROWS) throw new Error(`drained ${sent} rows, expected ${ROWS} (a row sent twice or lost)`);
  return performance.now() - started;
}

async function timeOutbox(
  target: () => Promise<StoreTarget>,
): Promise<{ enqueueMs: number; one: number; four: number }> {
  const result = { enqueueMs: 0, one: 0, four: 0 };
  for (const workers of [1, WORKERS]) {
    const where = await target();
    const stores = await Promise.all(
      Array.from({ length: workers }, () => openStore(where, { deriveMetrics: false })),
    );
    try {
      const started = performance.now();
      for (let i = 0; i < ROWS; i++) {
        await enqueueDelivery(stores[0]!, { report: 'weekly', querySetId: 101, runId: i + 1 }, Date.now());
      }
      result.enqueueMs = performance.now() - started;
      const ms = await drain(stores);
      if (workers === 1) result.one = ms;
      else result.four = ms;
    } finally {
      for (const store of stores) await store.close();
    }
  }
  return result;
}

try {
  let n = 0;
  const sqliteFile = () => Promise.resolve({ path: join(dir, `bench-${n++}.sqlite`) });
  const postgresDb = async () => ({ url: await freshDatabase() });
  const syncSqlite = await timeSync(await sqliteFile());
  const syncPostgres = await timeSync(await postgresDb());
  const outboxSqlite = await timeOutbox(sqliteFile);
  const outboxPostgres = await timeOutbox(postgresDb);
  const ratio = (pgMs: number, sqliteMs: number) => (pgMs / sqliteMs).toFixed(2);
  const line = (label: string, sqliteMs: number, pgMs: number) =>
    `  ${label.padEnd(34)} sqlite ${sqliteMs.toFixed(0).padStart(6)} ms   postgres ${pgMs.toFixed(0).padStart(6)} ms   postgres/sqlite ${ratio(pgMs, sqliteMs)}`;
  process.stdout.write(
    [
      `bench:store (${syncSqlite.snapshots} snapshots, ${syncSqlite.requests} requests; ${ROWS} outbox rows)`,
      line(`sync of ${syncSqlite.snapshots} snapshots`, syncSqlite.ms, syncPostgres.ms),
      line(`enqueue ${ROWS} deliveries`, outboxSqlite.enqueueMs, outboxPostgres.enqueueMs),
      line(`drain ${ROWS}, 1 worker`, outboxSqlite.one, outboxPostgres.one),
      line(`drain ${ROWS}, ${WORKERS} workers`, outboxSqlite.four, outboxPostgres.four),
      `  ${WORKERS} workers vs 1: sqlite ${(outboxSqlite.one / outboxSqlite.four).toFixed(2)}x, postgres ${(outboxPostgres.one / outboxPostgres.four).toFixed(2)}x`,
      '',
    ].join('\n'),
  );
} finally {
  cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
}
