/**
 * Reads the page each top-level bookmark of a PDF points at, for the digest's table of contents: the
 * first render prints the document with its outline, this finds where each set landed, and the
 * second render prints the contents page with those numbers.
 *
 * Only what Chromium (Skia) writes is supported: plain `N 0 obj … endobj` objects (no object
 * streams, no xref streams), an outline whose items carry `/Dest [page 0 R …]`. Anything else gives
 * `undefined`, and the caller prints the contents without numbers rather than wrong ones. Tests check
 * the outline with qpdf, never with this reader.
 */
export function topLevelBookmarkPages(pdf: Buffer): number[] | undefined {
  const text = pdf.toString('latin1');
  const objects = new Map<number, string>();
  const start = /(?:^|[\r\n])(\d+) 0 obj\b/g;
  for (let match = start.exec(text); match; match = start.exec(text)) {
    const from = match.index + match[0].length;
    const ends = [text.indexOf('endobj', from), text.indexOf('stream', from)].filter((i) => i >= 0);
    if (ends.length === 0) continue;
    objects.set(Number(match[1]), text.slice(from, Math.min(...ends)));
  }
  const ref = (body: string | undefined, key: string): number | undefined => {
    const found = body?.match(new RegExp(`/${key}\\s+(\\d+) 0 R`));
    return found ? Number(found[1]) : undefined;
  };
  const catalog = [...objects.values()].find((body) => /\/Type\s*\/Catalog\b/.test(body));
  const outlines = ref(catalog, 'Outlines');
  const pagesRoot = ref(catalog, 'Pages');
  if (outlines === undefined || pagesRoot === undefined) return undefined;

  // Page objects in document order, through the (possibly nested) page tree.
  const order = new Map<number, number>();
  const walk = (id: number, depth: number): void => {
    const body = objects.get(id);
    if (!body || depth > 32) return;
    const kids = body.match(/\/Kids\s*\[([^\]]*)\]/);
    if (!kids) {
      order.set(id, order.size + 1);
      return;
    }
    for (const kid of kids[1]!.matchAll(/(\d+) 0 R/g)) walk(Number(kid[1]), depth + 1);
  };
  walk(pagesRoot, 0);

  const pages: number[] = [];
  const seen = new Set<number>();
  for (let item = ref(objects.get(outlines), 'First'); item !== undefined; ) {
    if (seen.has(item)) return undefined;
    seen.add(item);
    const body = objects.get(item);
    const dest = body?.match(/\/Dest\s*\[\s*(\d+) 0 R/);
    const page = dest ? order.get(Number(dest[1])) : undefined;
    if (page === undefined) return undefined;
    pages.push(page);
    item = ref(body, 'Next');
  }
  return pages;
}
