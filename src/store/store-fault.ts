import { StoreFaultError } from '../errors/index.js';

/**
 * SQLite errors that are the machine's trouble, not a bug: the disk is full, the file or its folder
 * is read-only, the file is damaged. They must reach the user as one line naming the store, with the
 * exit code of other user errors (never 70, which says "a bug"), and must stop the work at once
 * rather than fail every payload in turn.
 */
const HINTS: Record<string, string> = {
  SQLITE_FULL: 'the disk is full; free space, then run it again (what was stored is kept)',
  SQLITE_READONLY: 'the store is read-only; make the file and its folder writable',
  SQLITE_CORRUPT: 'the file is damaged; restore it from a backup or move it away to start afresh',
  SQLITE_NOTADB: 'the file is not a reportd store; check store.path',
  SQLITE_IOERR: 'the disk failed to read or write; check it (a full or read-only disk shows this too)',
  SQLITE_CANTOPEN: 'the file cannot be opened; check store.path and its folder',
  SQLITE_PERM: 'permission denied; check the owner of the file and its folder',
  SQLITE_BUSY: 'another process held the store locked for too long; try again',
  SQLITE_LOCKED: 'another process held the store locked for too long; try again',
};

/** The hint for a store error from the OS or the file, or undefined for anything else. */
export function storeFaultHint(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  // Extended codes (SQLITE_READONLY_DBMOVED, SQLITE_IOERR_WRITE…) share their primary code's hint.
  const primary = Object.keys(HINTS).find((key) => code === key || code.startsWith(`${key}_`));
  return primary ? HINTS[primary] : undefined;
}

/** `error` as a StoreFaultError naming `path` when it is a store fault; otherwise `error` itself. */
export function asStoreFault(error: unknown, path: string): unknown {
  if (error instanceof StoreFaultError) return error;
  const hint = storeFaultHint(error);
  if (!hint) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreFaultError(`store ${path}: ${message} (${hint})`, { cause: error });
}
