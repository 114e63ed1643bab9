/** Hints for what the machine refused, where the fix is the user's, not ours. */
const SYSTEM_HINTS: Record<string, string> = {
  EADDRINUSE: 'another process listens there; stop it or choose another port',
  EACCES: 'permission denied; check the owner of the file or use a port above 1023',
  ENOSPC: 'the disk is full',
  EROFS: 'the file system is read-only; point the path somewhere writable',
};

/**
 * A refusal by the operating system (a port in use, a read-only disk) is the environment's problem,
 * not a bug in reportd: one line naming what failed, no stack trace.
 */
export function systemErrorLine(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (!code || !syscall) return undefined;
  const hint = SYSTEM_HINTS[code];
  return hint ? `${error.message} (${hint})` : error.message;
}
