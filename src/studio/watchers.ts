import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Config } from '../config/index.js';

/**
 * The files the studio follows: the folders a config's templates and logos are in (each watched once,
 * however often a reloaded config names it again), and the config file itself.
 */
export class StudioWatchers {
  private readonly watchers: FSWatcher[] = [];
  private readonly watched = new Set<string>();

  constructor(
    /** The folders whose changes re-render under a config. */
    private readonly foldersOf: (config: Config) => readonly string[],
    private readonly changed: () => void,
  ) {}

  /** Watches the folders `config` uses that are not watched yet. */
  folders(config: Config): void {
    for (const dir of this.foldersOf(config)) {
      if (this.watched.has(dir)) continue;
      this.watched.add(dir);
      this.watchers.push(watch(dir, { recursive: true }, this.changed));
    }
  }

  /** Calls `saved` once a burst of writes to `path` is over. */
  file(path: string, saved: () => void): void {
    // The folder, not the file: editors save by writing a new file and renaming it over the old one.
    const name = basename(path);
    let timer: NodeJS.Timeout | undefined;
    this.watchers.push(
      watch(dirname(path), (_event, file) => {
        if (file !== null && file !== name) return;
        clearTimeout(timer);
        timer = setTimeout(saved, 60);
      }),
    );
  }

  close(): void {
    for (const watcher of this.watchers) watcher.close();
  }
}
