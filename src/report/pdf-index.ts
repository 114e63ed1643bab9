import { PDFArray, PDFContext, PDFDict, PDFName, type PDFObject, PDFObjectParser, PDFRef } from 'pdf-lib';

/**
 * A PDF as Chromium writes it (one classic cross-reference table), indexed without parsing it: where
 * each object starts, the trailer, and the pages in order. Only the objects a caller asks for are ever
 * parsed (`objectAt`), never the ~15,000 of a long digest (mostly its tagged structure): reading and
 * re-writing a whole 104-page digest with pdf-lib took ~230 ms, more than printing its front matter.
 * Shared by the digest's front-matter swap (digest/front-pages.ts) and the PDF/UA finish (pdf-ua/).
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
  /**
   * Objects parsed so far, by number: a page is read by the page tree, the content streams and the
   * structure tree edits alike, and parsed once. A caller that changes an object changes it here too,
   * and writes it back itself.
   */
  parsed: Map<number, PDFObject>;
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
      parsed: new Map(),
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
export function objectAt(draft: DraftPdf, ref: PDFRef): PDFObject {
  let object = draft.parsed.get(ref.objectNumber);
  if (!object) {
    object = parseObjectAt(draft, ref);
    draft.parsed.set(ref.objectNumber, object);
  }
  return object;
}

function parseObjectAt(draft: DraftPdf, ref: PDFRef): PDFObject {
  const offset = draft.offsets.get(ref.objectNumber);
  if (offset === undefined) throw new Error(`object ${ref.objectNumber} is not in the table`);
  const header = /^\s*(\d+)\s+(\d+)\s+obj\b/.exec(
    latin1(draft.bytes, offset, Math.min(offset + 32, draft.bytes.length)),
  );
  if (!header || Number(header[1]) !== ref.objectNumber) throw new Error(`object ${ref.objectNumber} moved`);
  const start = offset + header[0].length;
  return PDFObjectParser.forBytes(draft.bytes.subarray(start), draft.context).parseObject();
}

export function dictAt(draft: DraftPdf, ref: PDFRef): PDFDict {
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
