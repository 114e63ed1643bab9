import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../src/store/sqlite-addon.js';
import { type SyncEnv, startSyncEnv } from '../sync/helpers/sync-env.js';
import { readPage } from './pages.js';

/**
 * The three example queries of docs/analysing-data.md, run as written against a store synced
 * from the sandbox, through a second, read-only connection (as a BI tool would open the file).
 */

const page = readPage('docs/analysing-data.md');
const queries = [...page.matchAll(/^```sql\n([\s\S]*?)^```/gm)].map((m) => m[1]!);

let env: SyncEnv;
let reader: Database.Database;
beforeAll(async () => {
  env = await startSyncEnv({
    rate: { requests: 2000, windowMs: 1000 },
    settings: { query_sets: [101], backfill_runs: 4 },
    concurrency: 8,
  });
  await env.sync();
  reader = openSqliteDatabase(env.storePath, { readonly: true });
}, 60_000);
afterAll(async () => {
  reader.close();
  await env.close();
});

describe('docs/analysing-data.md', () => {
  it('has three example queries', () => {
    expect(queries).toHaveLength(3);
  });

  it('charts weighted presence over time by engine, from the payloads', async () => {
    const rows = reader.prepare(queries[0]!).all() as {
      run: string;
      engine: string;
      weighted_presence: number;
    }[];
    const runs = [...new Set(rows.map((r) => r.run))];
    expect(runs).toHaveLength(4);
    expect(new Set(rows.map((r) => r.engine))).toEqual(
      new Set(['ChatGPT', 'Gemini', 'Perplexity', 'Claude', 'Copilot']),
    );
    // The newest run's ChatGPT value is the payload's own number.
    const stored = await env.store.get<{ json: string }>(
      `SELECT p.json FROM payloads p JOIN snapshots s ON s.id = p.snapshot_id JOIN runs r
         ON r.account = s.account AND r.query_set_id = s.query_set_id AND r.id = s.run_id
       WHERE p.endpoint_key = 'presence.by-engine' AND r.display_name = ?`,
      [runs.at(-1)],
    );
    const payload = JSON.parse(stored!.json) as { presenceByEngine: Record<string, { weighted: number }> };
    const chatgpt = rows.find((r) => r.run === runs.at(-1) && r.engine === 'ChatGPT');
    expect(chatgpt!.weighted_presence).toBe(payload.presenceByEngine['3']!.weighted);
  });

  it('sets the brand against its competitors, in percent', () => {
    const rows = reader.prepare(queries[1]!).all() as {
      run: string;
      name: string;
      side: string;
      share_pct: number;
    }[];
    const brand = rows.filter((r) => r.side === 'brand');
    expect(brand).toHaveLength(4);
    expect(brand.every((r) => r.name === 'Northwind Coffee')).toBe(true);
    expect(rows.filter((r) => r.side === 'competitor').length).toBeGreaterThan(8);
    // Fractions on the API side, percent here.
    for (const row of rows) expect(row.share_pct).toBeGreaterThan(0);
    expect(Math.max(...rows.map((r) => r.share_pct))).toBeGreaterThan(1);
  });

  it('counts new errors per run: the first run has all its errors, later ones only new ids', () => {
    const rows = reader.prepare(queries[2]!).all() as {
      run: string;
      new_errors: number;
      error_ids: string;
    }[];
    expect(rows.length).toBeGreaterThan(0);
    const seen = new Set<string>();
    const firstRunErrors = reader
      .prepare(`SELECT COUNT(DISTINCT error_id) FROM v_error_register WHERE query_set_id = 101 AND run = ?`)
      .pluck()
      .get(rows[0]!.run);
    expect(rows[0]!.new_errors).toBe(firstRunErrors);
    for (const row of rows) {
      const ids = row.error_ids.split(',');
      expect(ids).toHaveLength(row.new_errors);
      for (const id of ids) {
        expect(seen.has(id), `${id} reported new twice`).toBe(false);
        seen.add(id);
      }
    }
  });
});
