import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OpenStoreOptions, openStore } from '../../../src/store/db.js';
import type { Store } from '../../../src/store/sql.js';
import { freshDatabaseUrl } from '../../helpers/postgres.js';
import { testEngine } from '../../helpers/test-store.js';

export interface TempStore {
  store: Store;
  /** A fresh temp folder (configs, rendered files), removed by `cleanup()`. */
  dir: string;
  /**
   * What `openStore` (and `store.path`/`store.url` of a config, and a child process) takes to open
   * this store again: the SQLite file, or in the `postgres` vitest project the database's URL.
   */
  path: string;
  /** The same as `path`, under the name `openStore` gives it. */
  target: string;
  /** The YAML line of a config that names this store: `store: { path: … }` or `store: { url: … }`. */
  configLine: string;
  /** Closes the store and removes the folder. */
  cleanup(): Promise<void>;
}

/**
 * A store on the engine under test (`testEngine()`): a real SQLite file in a fresh temp folder, or
 * in the `postgres` project a fresh, empty PostgreSQL database of the run's throwaway server. `name`
 * is the SQLite file's name (a PostgreSQL database gets a unique one of its own).
 */
export async function tempStore(name = 'reportd.sqlite', options: OpenStoreOptions = {}): Promise<TempStore> {
  const dir = mkdtempSync(join(tmpdir(), 'reportd-store-'));
  const onPostgres = testEngine() === 'postgres';
  const target = onPostgres ? await freshDatabaseUrl() : join(dir, 'nested', name);
  let store: Store;
  try {
    store = await openStore(target, options);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    store,
    dir,
    path: target,
    target,
    configLine: onPostgres ? `store: { url: "${target}" }` : `store: { path: "${target}" }`,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
