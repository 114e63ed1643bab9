import { statSync } from 'node:fs';

/**
 * Notices the store file being deleted or replaced under a running process. SQLite keeps writing to
 * the inode it opened, so a deleted store goes on "working" (and is lost at exit), and a replaced one
 * is silently not the file ops look at: both would let a restart email the same runs again. The
 * file's identity (device and inode) is taken when the watch starts, right after the store opened.
 */
export interface StoreFileWatch {
  /** Undefined while the path still names the file that was opened; else one line saying what changed. */
  problem(): string | undefined;
}

export function watchStoreFile(path: string): StoreFileWatch {
  if (path === ':memory:') return { problem: () => undefined };
  const opened = statSync(path);
  return {
    problem() {
      let now: ReturnType<typeof statSync>;
      try {
        now = statSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          return `store file ${path} was deleted while this process ran; restart the daemon to open a new one`;
        }
        return `store file ${path} cannot be checked: ${(error as Error).message}`;
      }
      if (now.ino !== opened.ino || now.dev !== opened.dev) {
        return `store file ${path} was replaced while this process ran; restart the daemon to open the new one`;
      }
      return undefined;
    },
  };
}
