import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAPPING_VERSION } from '../../src/store/metric-values.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { type SyncEnv, startSyncEnv } from '../sync/helpers/sync-env.js';

/**
 * `reportd export --incremental NAME --to postgres://…` into a real PostgreSQL (the `postgres`
 * project's cluster; the suite skips itself in the sqlite project): a second load adds nothing, a
 * run published and synced in between adds exactly its rows, and a load killed with SIGKILL while it
 * holds its transaction open leaves the schema as it was.
 */

const onPostgres = process.env.REPORTD_TEST_ENGINE === 'postgres';

let env: SyncEnv;
let config: string;
let target: string;
let client: pg.Client;
beforeAll(async () => {
  if (!onPostgres) return;
  env = await startSyncEnv({
    rate: { requests: 2000, windowMs: 1000 },
    sandbox: { hostile: true },
    settings: { query_sets: [101, 102], backfill_runs: 2 },
    concurrency: 8,
  });
  await env.sync();
  config = env.writeConfig();
  target = await freshDatabaseUrl();
  client = new pg.Client({ connectionString: target });
  await client.connect();
}, 60_000);
afterAll(async () => {
  if (!onPostgres) return;
  await client.end();
  await env.close();
});

const TABLES = [
  'metric_values',
  'runs',
  'query_sets',
  'engines',
  'intents',
  'error_register',
  'sources',
  'summaries',
  '_loads',
];

async function counts(schema = 'warehouse'): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const table of TABLES) {
    const { rows } = await client.query(`SELECT COUNT(*)::int AS n FROM ${schema}.${table}`);
    result[table] = rows[0].n;
  }
  return result;
}

async function storeCount(sql: string, params: unknown[] = []): Promise<number> {
  const row = await env.store.get<Record<string, unknown>>(sql, params);
  return Number(Object.values(row ?? {})[0]);
}

const load = () =>
  runCli(['export', '--config', config, '--to', target, '--schema', 'warehouse', '--incremental', 'weekly']);

describe.skipIf(!onPostgres)('reportd export --incremental --to postgres://…', () => {
  it('loads every run once, nothing the second time, exactly a new run after a sync', async () => {
    const first = await load();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /^load weekly-\S+ into PostgreSQL schema warehouse at postgres:\/\/[^@]+: 4 runs/,
    );
    // The URL's credentials stay out of what the command prints.
    expect(first.stdout).not.toContain(new URL(target).password || '\u0000');
    const afterFirst = await counts();
    expect(afterFirst.metric_values).toBe(await storeCount('SELECT COUNT(*) FROM metric_values'));
    expect(afterFirst.error_register).toBe(await storeCount('SELECT COUNT(*) FROM metric_error_register'));
    const { rows: types } = await client.query(
      `SELECT column_name, data_type FROM information_schema.columns
       WHERE table_schema = 'warehouse' AND table_name = 'metric_values'`,
    );
    const typeOf = Object.fromEntries(types.map((t) => [t.column_name, t.data_type]));
    expect(typeOf).toMatchObject({
      run_created_at: 'timestamp with time zone',
      value: 'double precision',
      _load_id: 'text',
    });

    const second = await load();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/nothing new .*\(0 rows written\)/);
    expect(await counts()).toEqual(afterFirst);

    const published = env.sandbox.publishRun(102);
    await env.sync();
    const snapshot = await env.store.get<{ id: number; rows: number }>(
      `SELECT s.id, d.rows FROM snapshots s JOIN metric_derivations d ON d.snapshot_id = s.id
       WHERE s.query_set_id = 102 AND s.run_id = ?`,
      [published.id],
    );
    const third = await load();
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toMatch(/: 1 run, /);
    const afterThird = await counts();
    expect(afterThird.metric_values! - afterFirst.metric_values!).toBe(Number(snapshot!.rows));
    expect(afterThird.sources! - afterFirst.sources!).toBe(
      await storeCount('SELECT COUNT(*) FROM metric_sources WHERE snapshot_id = ?', [snapshot!.id]),
    );
    expect(afterThird.runs! - afterFirst.runs!).toBe(1);
    expect(afterThird._loads).toBe(2);
    const { rows: views } = await client.query(
      `SELECT COUNT(*)::int AS n FROM warehouse.v_metric_values WHERE run_id = $1 AND query_set_id = 102`,
      [published.id],
    );
    expect(views[0].n).toBe(Number(snapshot!.rows));

    // Loads made by a reportd with an older metric mapping: the next load's note says so.
    await client.query('UPDATE warehouse._loads SET mapping_version = $1', [MAPPING_VERSION - 1]);
    env.sandbox.publishRun(102);
    await env.sync();
    const fourth = await load();
    expect(fourth.code, fourth.stderr).toBe(0);
    const note = `metric mapping changed from version ${MAPPING_VERSION - 1} to ${MAPPING_VERSION}`;
    expect(fourth.stdout).toContain(`note: ${note}`);
    const { rows: notes } = await client.query('SELECT note FROM warehouse._loads ORDER BY finished_at');
    expect(notes.map((row) => row.note?.slice(0, note.length) ?? null)).toEqual([null, null, note]);
  });

  it('leaves the schema as it was when the load is killed with SIGKILL inside its transaction', async () => {
    const before = await counts();
    env.sandbox.publishRun(101);
    await env.sync();
    // A SHARE lock lets the load read and insert metric_values, runs, … but holds its first insert
    // into `sources`: the load waits there with its transaction open, which is when it is killed.
    const holder = new pg.Client({ connectionString: target });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE warehouse.sources IN SHARE MODE');
    const child = spawnCli([
      'export',
      '--config',
      config,
      '--to',
      target,
      '--schema',
      'warehouse',
      '--incremental',
      'weekly',
    ]);
    const exited = new Promise((resolve) => child.on('close', resolve));
    try {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const { rows } = await client.query(
          `SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO "warehouse"."sources"%'`,
        );
        if (rows[0].n > 0) break;
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error('the load never waited on sources');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      child.kill('SIGKILL');
      await exited;
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expect(child.signalCode).toBe('SIGKILL');
    // The server ends the dead client's session and rolls its transaction back.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { rows } = await client.query(
        `SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'INSERT INTO "warehouse".%' AND state <> 'idle'`,
      );
      if (rows[0].n === 0 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await counts()).toEqual(before);
    const again = await load();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/: 1 run, /);
  });
});
