import {
  PDFArray,
  PDFContext,
  PDFDict,
  PDFDocument,
  PDFName,
  type PDFObject,
  PDFObjectCopier,
  PDFObjectParser,
  PDFRef,
} from 'pdf-lib';

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
 * pages and bookmarks are ever parsed, never the draft's ~15,000 (mostly the tagged structure):
 * reading and re-writing the whole draft with pdf-lib took ~230 ms of a 104-page digest, more than
 * its front-matter print. Chromium writes a classic cross-reference table; a draft without one (or
 * anything else unexpected) gives undefined, and the caller prints the whole document again.
 */

/** A rendered PDF, indexed: where its objects are, and its pages in order. */
export interface DraftPdf {
  pageCount: number;
  bytes: Uint8Array;
  /** Byte offset of each object, by object number (generation 0: Chromium writes nothing else). */
  offsets: Map<number, number>;
  /** The trailer: the next free object number, the catalog, the document information. */
  size: number;
  root: PDFRef;
  info?: PDFRef;
  /** Where the draft's cross-reference table starts (the update's /Prev). */
  startXref: number;
  /** The file identifier, as the trailer writes it (an update's trailer repeats it). */
  id?: string;
  pages: PDFRef[];
  context: PDFContext;
}

const latin1 = (bytes: Uint8Array, from = 0, to = bytes.length) =>
  Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString('latin1');

/** The draft's index, or undefined when it is not a PDF with a classic cross-reference table. */
export function readDraft(pdf: Uint8Array): DraftPdf | undefined {
  try {
    const tail = latin1(pdf, Math.max(0, pdf.length - 1024));
    const startXref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail)?.[1]);
    if (!Number.isInteger(startXref)) return undefined;
    const section = latin1(pdf, startXref, pdf.length);
    const table = /^xref\s+/.exec(section);
    if (!table) return undefined; // a cross-reference stream: not what Chromium writes
    const offsets = new Map<number, number>();
    let at = table[0].length;
    const subsection = /(\d+) (\d+)\s+/y;
    for (;;) {
      subsection.lastIndex = at;
      const head = subsection.exec(section);
      if (!head) break;
      const first = Number(head[1]);
      const count = Number(head[2]);
      at = subsection.lastIndex;
      for (let i = 0; i < count; i++) {
        const entry = section.slice(at, at + 20);
        if (entry[17] === 'n') offsets.set(first + i, Number(entry.slice(0, 10)));
        at += 20;
      }
    }
    const trailer = /^trailer\s*<<([\s\S]*?)>>/.exec(section.slice(at));
    if (!trailer) return undefined;
    const ref = (key: string) => {
      const match = new RegExp(`/${key}\\s+(\\d+)\\s+0\\s+R`).exec(trailer[1]!);
      return match ? PDFRef.of(Number(match[1])) : undefined;
    };
    const size = Number(/\/Size\s+(\d+)/.exec(trailer[1]!)?.[1]);
    const root = ref('Root');
    if (!root || !Number.isInteger(size) || /\/(Prev|Encrypt)\b/.test(trailer[1]!)) return undefined;
    const draft: DraftPdf = {
      pageCount: 0,
      bytes: pdf,
      offsets,
      size,
      root,
      info: ref('Info'),
      id: /\/ID\s*\[[^\]]*\]/.exec(trailer[1]!)?.[0],
      startXref,
      pages: [],
      context: PDFContext.create(),
    };
    const pageTree = dictAt(draft, root).get(PDFName.of('Pages'));
    if (!(pageTree instanceof PDFRef)) return undefined;
    draft.pages = pagesUnder(draft, pageTree, new Set());
    draft.pageCount = draft.pages.length;
    return draft;
  } catch {
    return undefined; // an object not where the table says, or not a dictionary: print again
  }
}

/** The object `ref` as the draft stores it (parsed from its own bytes only). */
function objectAt(draft: DraftPdf, ref: PDFRef): PDFObject {
  const offset = draft.offsets.get(ref.objectNumber);
  if (offset === undefined) throw new Error(`object ${ref.objectNumber} is not in the table`);
  const header = /^\s*(\d+)\s+(\d+)\s+obj\b/.exec(
    latin1(draft.bytes, offset, Math.min(offset + 32, draft.bytes.length)),
  );
  if (!header || Number(header[1]) !== ref.objectNumber) throw new Error(`object ${ref.objectNumber} moved`);
  const start = offset + header[0].length;
  return PDFObjectParser.forBytes(draft.bytes.subarray(start), draft.context).parseObject();
}

function dictAt(draft: DraftPdf, ref: PDFRef): PDFDict {
  const object = objectAt(draft, ref);
  if (!(object instanceof PDFDict)) throw new Error(`object ${ref.objectNumber} is not a dictionary`);
  return object;
}

/** The page objects under a page tree node, in document order. */
function pagesUnder(draft: DraftPdf, node: PDFRef, seen: Set<number>): PDFRef[] {
  if (seen.has(node.objectNumber)) throw new Error('the page tree loops');
  seen.add(node.objectNumber);
  const dict = dictAt(draft, node);
  if (dict.get(PDFName.of('Type')) === PDFName.of('Page')) return [node];
  const kids = dict.get(PDFName.of('Kids'));
  if (!(kids instanceof PDFArray)) throw new Error('a page tree node without kids');
  return kids.asArray().flatMap((kid) => {
    if (!(kid instanceof PDFRef)) throw new Error('a page tree kid that is not a reference');
    return pagesUnder(draft, kid, seen);
  });
}

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
