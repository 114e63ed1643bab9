import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../../src/store/db.js';

/** A real SQLite file in a fresh temp folder; `cleanup()` closes it and removes the folder. */
export function tempStore(name = 'reportd.sqlite'): {
  store: Store;
  dir: string;
  path: string;
  cleanup(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'reportd-store-'));
  const path = join(dir, 'nested', name);
  const store = openStore(path);
  return {
    store,
    dir,
    path,
    cleanup() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
