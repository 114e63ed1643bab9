import type { Preview } from './session.js';

/**
 * The studio's last good render of each selection, bounded by count and by size, least recently used
 * out first: every picker combination an author tries is a selection, and a page left open for a day
 * must not keep them all (a preview is a whole report's HTML, a few hundred KB to a few MB).
 */

export interface Made {
  /** The files' version the render was made at. */
  version: number;
  preview: Preview;
}

/** Selections kept, and their size in all: a few pickers' worth, well under the studio's own size. */
export const PREVIEWS_KEPT = { count: 24, bytes: 48 * 1024 * 1024 } as const;

/** What a preview holds, as the bytes its strings may take (two a character, at most). */
function sizeOf(preview: Preview): number {
  const { html, email, channels } = preview;
  return 2 * (html.length + email.html.length + email.text.length + JSON.stringify(channels).length);
}

export class PreviewCache {
  // A Map keeps insertion order: re-inserting on every read makes its first key the least recent.
  private readonly entries = new Map<string, Made & { bytes: number }>();
  private bytes = 0;

  constructor(private readonly limits: { count: number; bytes: number } = PREVIEWS_KEPT) {}

  get(key: string): Made | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, made: Made): void {
    this.delete(key);
    const entry = { ...made, bytes: sizeOf(made.preview) };
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    // The newest stays even when it alone is over the size: the page shows it.
    for (const oldest of this.entries.keys()) {
      if (
        this.entries.size <= 1 ||
        (this.entries.size <= this.limits.count && this.bytes <= this.limits.bytes)
      )
        break;
      this.delete(oldest);
    }
  }

  get size(): { count: number; bytes: number } {
    return { count: this.entries.size, bytes: this.bytes };
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
