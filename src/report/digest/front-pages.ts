import { ParseSpeeds, PDFArray, PDFDict, PDFDocument, PDFName, PDFRef } from 'pdf-lib';

/**
 * pdf-lib yields to the event loop every N objects while it parses and writes; its default (100)
 * makes a 100-page digest (some 15,000 objects, mostly the tagged structure) take hundreds of turns
 * of the loop, each one a chance for other work to cut in, and the swap took tens of seconds on a
 * busy machine. 1,500 keeps a daemon's loop answering (a few ms per slice) at a tenth of the turns.
 */
const OBJECTS_PER_TICK = ParseSpeeds.Fast;

/**
 * The digest's contents page needs the page each set starts on, which only a render knows. Printing
 * the whole document a second time just to fill in those numbers doubled the digest's cost, so the
 * second pass prints only the front matter (cover and contents) and its pages are put in place of
 * the draft's own: the same page objects keep their new content, so the outline, the links and the
 * tagged structure that point at them stay valid, and every other page is the draft's, byte for byte
 * in content.
 */

/** A rendered PDF read once: its page count, and the document the front pages are put into. */
export interface DraftPdf {
  pageCount: number;
  doc: PDFDocument;
}

export async function readDraft(pdf: Uint8Array): Promise<DraftPdf> {
  // updateMetadata: false keeps Chromium's Producer and dates instead of pdf-lib's.
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, parseSpeed: OBJECTS_PER_TICK });
  return { pageCount: doc.getPageCount(), doc };
}

/**
 * The page (1-based) each top-level bookmark points at, in outline order: where the cover, contents,
 * portfolio and each set start. Undefined when the outline is missing or a bookmark has no page
 * destination (the caller then prints the contents without numbers rather than wrong ones).
 */
export function topLevelBookmarkPages(draft: DraftPdf): number[] | undefined {
  const { doc } = draft;
  const pageOf = new Map(doc.getPages().map((page, i) => [page.ref.toString(), i + 1]));
  const outlines = doc.catalog.lookupMaybe(PDFName.of('Outlines'), PDFDict);
  const pages: number[] = [];
  const seen = new Set<string>();
  let item = outlines?.get(PDFName.of('First'));
  while (item instanceof PDFRef) {
    if (seen.has(item.toString())) return undefined;
    seen.add(item.toString());
    const entry = doc.context.lookup(item, PDFDict);
    const target = entry.lookupMaybe(PDFName.of('Dest'), PDFArray)?.get(0);
    const page = target instanceof PDFRef ? pageOf.get(target.toString()) : undefined;
    if (page === undefined) return undefined;
    pages.push(page);
    item = entry.get(PDFName.of('Next'));
  }
  return outlines ? pages : undefined;
}

/**
 * The draft with its pages 2..n (n = the front matter's page count) showing the front matter's pages
 * 2..n instead: the cover (page 1) is the same in both, so it is left alone. Undefined when the front
 * matter is not the size the draft gave it (the contents would push the sets to other pages), and the
 * caller renders the whole document again instead.
 */
export async function withFrontPages(
  draft: DraftPdf,
  front: Uint8Array,
  frontPages: number,
): Promise<Buffer | undefined> {
  const source = await PDFDocument.load(front, { updateMetadata: false, parseSpeed: OBJECTS_PER_TICK });
  if (source.getPageCount() !== frontPages || draft.pageCount < frontPages) return undefined;
  const indices = Array.from({ length: frontPages - 1 }, (_, i) => i + 1);
  const copied = await draft.doc.copyPages(source, indices);
  for (const [k, index] of indices.entries()) {
    const target = draft.doc.getPage(index).node;
    const from = copied[k]!.node;
    // Only what the page shows: its content streams and the fonts and images they use. The target
    // keeps its identity (outline destinations), its StructParents and its place in the page tree.
    for (const key of ['Contents', 'Resources'] as const) {
      const value = from.get(PDFName.of(key));
      if (value) target.set(PDFName.of(key), value);
    }
  }
  // Plain objects and a classic xref table, as Chromium writes them (no object streams).
  return Buffer.from(
    await draft.doc.save({
      useObjectStreams: false,
      updateFieldAppearances: false,
      objectsPerTick: OBJECTS_PER_TICK,
    }),
  );
}
