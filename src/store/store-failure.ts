import { StoreError } from './db.js';

/** What SQLite's result codes mean for the person running reportd; the fix is theirs, not a bug. */
const HINTS: Record<string, string> = {
  SQLITE_FULL: 'the disk is full; free space and run it again',
  SQLITE_READONLY: 'the store is read-only; check the file system and the file permissions',
  SQLITE_BUSY: 'another process held the store locked for too long; run it again',
  SQLITE_LOCKED: 'another process held the store locked for too long; run it again',
  SQLITE_CORRUPT: 'the store file is damaged; restore it from a backup',
  SQLITE_NOTADB: 'the file is not a reportd store; check store.path',
  SQLITE_IOERR: 'the disk refused a read or write',
  SQLITE_CANTOPEN: 'the store file cannot be opened; check store.path and its folder',
};

/** The SQLite result code of `error` (`SQLITE_FULL`, also for extended codes like `SQLITE_IOERR_WRITE`). */
export function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  return Object.keys(HINTS).find((base) => code === base || code.startsWith(`${base}_`)) ?? code;
}

/**
 * A store refusal (full disk, read-only file, a lock held too long, a damaged file) as one line naming
 * the store, or undefined when `error` is not one. Callers throw the result instead of the raw error,
 * which the CLI would otherwise print as a bug.
 */
export function storeFailure(error: unknown, path: string): StoreError | undefined {
  const code = sqliteCode(error);
  if (!code) return undefined;
  const hint = HINTS[code];
  return new StoreError(`store ${path}: ${(error as Error).message}${hint ? ` (${hint})` : ''}`, {
    cause: error,
  });
}
