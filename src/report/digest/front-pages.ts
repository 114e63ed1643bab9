import { PDFArray, PDFContext, PDFDocument, PDFName, type PDFObject, PDFObjectCopier, PDFRef } from 'pdf-lib';
import { type DraftPdf, dictAt } from '../pdf-index.js';

/**
 * The digest's contents page needs the page each set starts on, which only a render knows. Printing
 * the whole document a second time just to fill in those numbers doubled the digest's cost, so the
 * second pass prints only the front matter (cover and contents) and its pages are put in place of
 * the draft's own: the same page objects get new content, so the outline, the links and the tagged
 * structure that point at them stay valid, and every other page is the draft's, byte for byte.
 *
 * The swap is a PDF incremental update (ISO 32000-1 §7.5.6): the draft's bytes unchanged, then the
 * new versions of those page objects, the front matter's content and fonts, and a cross-reference
 * section for them that points back at the draft's. So only the few objects on the way to the
 * pages and bookmarks are ever parsed (report/pdf-index.ts). Chromium writes a classic
 * cross-reference table; a draft without one (or anything else unexpected) gives undefined, and the
 * caller prints the whole document again.
 */

/**
 * The page (1-based) each top-level bookmark points at, in outline order: where the cover, contents,
 * portfolio and each set start. Undefined when the outline is missing or a bookmark has no page
 * destination (the caller then prints the contents without numbers rather than wrong ones).
 */
export function topLevelBookmarkPages(draft: DraftPdf): number[] | undefined {
  try {
    const pageOf = new Map(draft.pages.map((page, i) => [page.objectNumber, i + 1]));
    const outlines = dictAt(draft, draft.root).get(PDFName.of('Outlines'));
    if (!(outlines instanceof PDFRef)) return undefined;
    const pages: number[] = [];
    const seen = new Set<number>();
    let item = dictAt(draft, outlines).get(PDFName.of('First'));
    while (item instanceof PDFRef) {
      if (seen.has(item.objectNumber)) return undefined;
      seen.add(item.objectNumber);
      const entry = dictAt(draft, item);
      const dest = entry.get(PDFName.of('Dest'));
      const target = dest instanceof PDFArray ? dest.get(0) : undefined;
      const page = target instanceof PDFRef ? pageOf.get(target.objectNumber) : undefined;
      if (page === undefined) return undefined;
      pages.push(page);
      item = entry.get(PDFName.of('Next'));
    }
    return pages;
  } catch {
    return undefined;
  }
}

/**
 * The draft with its pages 2..n (n = the front matter's page count) showing the front matter's pages
 * 2..n instead: the cover (page 1) is the same in both, so it is left alone. Undefined when the front
 * matter is not the size the draft gave it (the contents would push the sets to other pages), or the
 * draft cannot be updated, and the caller renders the whole document again instead.
 */
export async function withFrontPages(
  draft: DraftPdf,
  front: Uint8Array,
  frontPages: number,
): Promise<Buffer | undefined> {
  const source = await PDFDocument.load(front, { updateMetadata: false });
  if (source.getPageCount() !== frontPages || draft.pageCount < frontPages) return undefined;
  // The front matter's content and fonts get object numbers after the draft's last one.
  const added = PDFContext.create();
  added.largestObjectNumber = draft.size - 1;
  const copier = PDFObjectCopier.for(source.context, added);
  const changed: [PDFRef, PDFObject][] = [];
  try {
    for (let index = 1; index < frontPages; index++) {
      const from = source.getPage(index).node;
      const target = draft.pages[index]!;
      const page = dictAt(draft, target).clone(added);
      // Only what the page shows: its content streams and the fonts and images they use. The page
      // keeps its identity (outline destinations), its StructParents and its place in the page tree.
      for (const key of ['Contents', 'Resources'] as const) {
        const value = from.get(PDFName.of(key));
        if (value) page.set(PDFName.of(key), copier.copy(value));
      }
      changed.push([target, page]);
    }
  } catch {
    return undefined;
  }
  return appendUpdate(draft, [...changed, ...added.enumerateIndirectObjects()]);
}

/** The draft's bytes, then `objects` and a cross-reference section and trailer for them. */
function appendUpdate(draft: DraftPdf, objects: [PDFRef, PDFObject][]): Buffer {
  // The draft as it is (Buffer.concat copies it once, into the result).
  const parts: Uint8Array[] = [draft.bytes];
  let offset = draft.bytes.length;
  // An update starts on a line of its own.
  if (draft.bytes[draft.bytes.length - 1] !== 0x0a) {
    parts.push(Buffer.from('\n'));
    offset += 1;
  }
  const entries: [number, number][] = [];
  let size = draft.size;
  for (const [ref, object] of objects) {
    const head = Buffer.from(`${ref.objectNumber} 0 obj\n`, 'latin1');
    const body = Buffer.alloc(object.sizeInBytes());
    object.copyBytesInto(body, 0);
    const tail = Buffer.from('\nendobj\n', 'latin1');
    entries.push([ref.objectNumber, offset]);
    parts.push(head, body, tail);
    offset += head.length + body.length + tail.length;
    size = Math.max(size, ref.objectNumber + 1);
  }
  const table = entries
    .sort(([a], [b]) => a - b)
    .map(([number, at]) => `${number} 1\n${String(at).padStart(10, '0')} 00000 n \n`)
    .join('');
  const info = draft.info ? ` /Info ${draft.info.objectNumber} 0 R` : '';
  const id = draft.id ? ` ${draft.id}` : '';
  parts.push(
    Buffer.from(
      `xref\n${table}trailer\n<< /Size ${size} /Root ${draft.root.objectNumber} 0 R${info}${id} /Prev ${draft.startXref} >>\nstartxref\n${offset}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}
