import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The studio's printed PDFs and their page images, made only when asked (the "Print PDF" button, the
 * Pages tab) and kept per render key (the files' version and the selection), so the live preview never
 * waits for Chromium's print or poppler: printing takes seconds, the HTML preview well under one.
 */

export interface Printed {
  pdf: Buffer;
  /** One PNG per page; null when poppler's pdftoppm is not installed. */
  pages: Promise<Buffer[] | null>;
}

/** How many renders are kept: a few pickers' worth, a few MB each. */
const KEPT = 6;

export class PrintCache {
  private readonly printed = new Map<string, Promise<Printed>>();

  /** The PDF of a key, printed once however many requests ask for it; a failure is not kept. */
  get(key: string, print: () => Promise<Buffer>): Promise<Printed> {
    let found = this.printed.get(key);
    if (!found) {
      if (this.printed.size >= KEPT) this.printed.delete(this.printed.keys().next().value!);
      found = print().then((pdf) => {
        let pages: Promise<Buffer[] | null> | undefined;
        return {
          pdf,
          // Rasterised on the first look only: the "Print PDF" button needs no images.
          get pages() {
            pages ??= rasterise(pdf);
            return pages;
          },
        };
      });
      found.catch(() => this.printed.delete(key));
      this.printed.set(key, found);
    }
    return found;
  }
}

/** Poppler's `pdftoppm`: one PNG per page at screen resolution; null when it is not installed. */
export async function rasterise(pdf: Buffer, dpi = 60): Promise<Buffer[] | null> {
  const folder = mkdtempSync(join(tmpdir(), 'reportd-studio-pages-'));
  try {
    const file = join(folder, 'doc.pdf');
    writeFileSync(file, pdf);
    const ran = await new Promise<boolean>((resolve, reject) =>
      execFile('pdftoppm', ['-png', '-r', String(dpi), file, join(folder, 'page')], (error) => {
        if (!error) resolve(true);
        else if ((error as NodeJS.ErrnoException).code === 'ENOENT') resolve(false);
        else reject(error);
      }),
    );
    if (!ran) return null;
    // page-1.png … page-10.png (zero-padded to the page count's width): by number, not by name.
    return readdirSync(folder)
      .map((name) => ({ name, n: Number(/^page-(\d+)\.png$/.exec(name)?.[1]) }))
      .filter((p) => Number.isInteger(p.n))
      .sort((a, b) => a.n - b.n)
      .map((p) => readFileSync(join(folder, p.name)));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
