import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OpenStoreOptions, openStore, type Store, type StoreTarget } from '../../../src/store/db.js';
import { testEngine } from '../../helpers/test-store.js';

export interface TempStore {
  store: Store;
  /** Where the store lives, to reopen it (`openStore(target)`) or to put in a config. */
  target: StoreTarget;
  /** A temp folder for other files of the test (removed by `cleanup`). */
  dir: string;
  /** The SQLite file; on PostgreSQL the database URL (what `reportd` commands take as the store). */
  path: string;
  cleanup(): Promise<void>;
}

/**
 * A fresh store on the engine under test: a real SQLite file in a new temp folder, or, in the
 * `postgres` vitest project, a new database on the run's throwaway PostgreSQL. `cleanup()` closes it
 * and removes the folder.
 */
export async function tempStore(name = 'reportd.sqlite', options: OpenStoreOptions = {}): Promise<TempStore> {
  const dir = mkdtempSync(join(tmpdir(), 'reportd-store-'));
  let target: StoreTarget;
  if (testEngine() === 'postgres') {
    const { freshDatabaseUrl } = await import('../../helpers/postgres.js');
    target = { url: await freshDatabaseUrl() };
  } else {
    target = { path: join(dir, 'nested', name) };
  }
  const store = await openStore(target, options);
  return {
    store,
    target,
    dir,
    path: 'url' in target ? target.url : target.path,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
