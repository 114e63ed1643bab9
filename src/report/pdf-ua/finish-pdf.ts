import { promisify } from 'node:util';
import { deflate as deflateAsync, inflate as inflateAsync } from 'node:zlib';
import { PDFArray, type PDFDict, PDFHexString, PDFName, type PDFObject, PDFRef, PDFString } from 'pdf-lib';
import { type DraftPdf, dictAt, readDraft } from '../pdf-index.js';
import { markArtifacts } from './artifacts.js';
import { releaseMarkedContent } from './struct-tree.js';
import { pdfDate, xmpPacket } from './xmp.js';

/**
 * Chromium's tagged PDF made a PDF/UA-1 document (ISO 14289-1). Chromium already writes the structure
 * tree (headings, tables with /Scope, lists, figures with the HTML's alternative text), /Lang,
 * /MarkInfo and DisplayDocTitle; what it leaves out is added here, after the print:
 *
 * - the XMP metadata stream with the PDF/UA identifier, title and language (xmp.ts);
 * - artifacts: the content it paints outside the structure tree (running header and footer,
 *   decorations, what the HTML hides from assistive technology) marked as such (artifacts.ts), and
 *   the structure tree rid of the decoration that was tagged (struct-tree.ts);
 * - the render's own date: Chromium dates the document when it prints it, so the same document at
 *   the same clock would differ by a second here and there; with `date` (in the information
 *   dictionary and the XMP alike) a preview and the message sent carry the very same PDF.
 *
 * A post-processing step rather than a PDF library re-building the document: only the catalog, the
 * information dictionary, the pages and their content streams are parsed (pdf-index.ts); every other
 * object, the structure tree's thousands among them, is copied byte for byte into a new file with a
 * new cross-reference table. So it costs a few milliseconds a page, and the file stays one Chromium
 * could have written (the digest's front-matter swap reads it the same way).
 */

/** zlib level for re-compressed content streams: 6 (Skia's) cost ~3× the time for ~4 % smaller pages. */
const DEFLATE_LEVEL = 1;

export interface FinishOptions {
  /** When the document was made (the render's clock): its CreationDate and ModDate. Chromium's own when absent. */
  date?: Date;
}

/** `pdf` as PDF/UA-1, or undefined when it is not laid out the way Chromium writes PDFs. */
export async function finishPdf(pdf: Uint8Array, options: FinishOptions = {}): Promise<Buffer | undefined> {
  const draft = readDraft(pdf);
  if (!draft) return undefined;
  try {
    const pages = await Promise.all(
      draft.pages.map(async (page) => ({
        page: page.objectNumber,
        streams: await Promise.all(
          contentsOf(dictAt(draft, page)).flatMap((ref) => {
            const stream = streamAt(draft, ref);
            return stream ? [inflated(stream)] : [];
          }),
        ),
      })),
    );
    const replaced = new Map<number, Uint8Array | null>();
    let marked = markPages(pages, true);
    let tree: Map<number, PDFObject | null>;
    try {
      tree = releaseMarkedContent(draft, marked.removed);
    } catch {
      // A tree this cannot edit: its decoration stays tagged rather than the tree point at nothing.
      marked = markPages(pages, false);
      tree = new Map();
    }
    const streams = await Promise.all(
      [...marked.streams].map(async ([number, { flate, content }]) => {
        const data = flate ? await deflate(content) : content;
        return [number, streamObject(number, flate, data)] as const;
      }),
    );
    for (const [number, bytes] of streams) replaced.set(number, bytes);
    for (const [number, object] of tree) replaced.set(number, object && indirectObject(number, object));
    const catalog = dictAt(draft, draft.root);
    const info = draft.info ? dictAt(draft, draft.info) : undefined;
    if (info && draft.info && options.date) {
      const date = PDFString.of(pdfDate(options.date));
      info.set(PDFName.of('CreationDate'), date);
      info.set(PDFName.of('ModDate'), date);
      replaced.set(draft.info.objectNumber, indirectObject(draft.info.objectNumber, info));
    }
    const text = (dict: PDFDict | undefined, key: string) => {
      const value = dict?.get(PDFName.of(key));
      return value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;
    };
    const metadata = draft.size;
    const packet = xmpPacket({
      title: text(info, 'Title') ?? '',
      language: text(catalog, 'Lang'),
      producer: text(info, 'Producer'),
      creatorTool: text(info, 'Creator'),
      created: text(info, 'CreationDate'),
      modified: text(info, 'ModDate'),
    });
    replaced.set(
      metadata,
      objectBytes(
        metadata,
        Buffer.concat([
          Buffer.from(`<</Type /Metadata /Subtype /XML /Length ${packet.length}>> stream\n`, 'latin1'),
          packet,
          Buffer.from('\nendstream', 'latin1'),
        ]),
      ),
    );
    catalog.set(PDFName.of('Metadata'), PDFRef.of(metadata));
    replaced.set(draft.root.objectNumber, indirectObject(draft.root.objectNumber, catalog));
    return rewrite(draft, replaced, metadata + 1);
  } catch {
    return undefined; // an object not where the table says, or not what a page holds: leave it as printed
  }
}

/**
 * Each page's content streams with their artifacts marked (still uncompressed, by object number), and
 * the MCIDs each page (by object number) no longer holds.
 */
function markPages(
  pages: { page: number; streams: InflatedStream[] }[],
  decorations: boolean,
): { streams: Map<number, { flate: boolean; content: Uint8Array }>; removed: Map<number, number[]> } {
  const streams = new Map<number, { flate: boolean; content: Uint8Array }>();
  const removed = new Map<number, number[]>();
  for (const { page, streams: contents } of pages) {
    for (const stream of contents) {
      const marked = markArtifacts(stream.content, { decorations });
      if (!marked) continue;
      streams.set(stream.number, { flate: stream.flate, content: marked.content });
      if (marked.removed.length > 0) removed.set(page, [...(removed.get(page) ?? []), ...marked.removed]);
    }
  }
  return { streams, removed };
}

/**
 * zlib in libuv's thread pool, every stream of a document at once: the same bytes and the same CPU
 * as in this thread (26.6 against 27.0 ms a report), but inflating and deflating (a third of the
 * finishing) no longer hold the event loop, whose other work is Chromium's: a browser that has loaded
 * or printed its document waits for this thread to send the print or read the PDF. The event loop's
 * delay while finishing went from 43 ms (median) to 2.7, on a loaded machine.
 *
 * zlib's output in one piece where it can: its default 16 KiB chunks made a page's ~100 KiB of
 * content five buffers joined at the end, a third of the inflating time. Chromium's content streams
 * inflate to 5–7 times their size; a chunk too small still works, in more pieces.
 */
const inflate = promisify((data: Uint8Array, done: (error: Error | null, result: Buffer) => void) =>
  inflateAsync(data, { chunkSize: chunkFor(data.length * 8) }, done),
);
const deflate = promisify((data: Uint8Array, done: (error: Error | null, result: Buffer) => void) =>
  deflateAsync(data, { level: DEFLATE_LEVEL, chunkSize: chunkFor(data.length / 4) }, done),
);
const chunkFor = (bytes: number) => Math.min(4 << 20, Math.max(16 << 10, Math.ceil(bytes)));

/** A content stream's bytes as the marking reads them: inflated when stored compressed. */
async function inflated(stream: ContentStream): Promise<InflatedStream> {
  return {
    number: stream.number,
    flate: stream.flate,
    content: stream.flate ? await inflate(stream.data) : stream.data,
  };
}

interface InflatedStream {
  number: number;
  flate: boolean;
  content: Uint8Array;
}

/** The content stream references of a page (one stream, or an array of them). */
function contentsOf(page: PDFDict): PDFRef[] {
  const contents = page.get(PDFName.of('Contents'));
  if (contents instanceof PDFRef) return [contents];
  if (contents instanceof PDFArray) return contents.asArray().filter((ref) => ref instanceof PDFRef);
  return [];
}

interface ContentStream {
  number: number;
  flate: boolean;
  /** The stream's bytes as stored (compressed when `flate`). */
  data: Uint8Array;
}

/** The content stream `ref` as Chromium writes it (Flate or plain, a direct /Length); else undefined. */
function streamAt(draft: DraftPdf, ref: PDFRef): ContentStream | undefined {
  const offset = draft.offsets.get(ref.objectNumber);
  if (offset === undefined) return undefined;
  const head = Buffer.from(draft.bytes.subarray(offset, offset + 256)).toString('latin1');
  // `N 0 obj\n<</Filter /FlateDecode\n/Length 5269>> stream\n…`
  const match = /^\s*\d+\s+0\s+obj\s*<<([^>]*)>>\s*stream\r?\n/.exec(head);
  if (!match) return undefined;
  const dict = match[1]!;
  const length = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dict);
  const filter = /\/Filter\s*\/(\w+)/.exec(dict)?.[1];
  if (!length || (filter !== undefined && filter !== 'FlateDecode') || /\/DecodeParms/.test(dict)) {
    return undefined;
  }
  const start = offset + match[0].length;
  const data = draft.bytes.subarray(start, start + Number(length[1]));
  return { number: ref.objectNumber, flate: filter !== undefined, data };
}

const streamObject = (number: number, flate: boolean, data: Uint8Array) =>
  objectBytes(
    number,
    Buffer.concat([
      Buffer.from(`<<${flate ? '/Filter /FlateDecode ' : ''}/Length ${data.length}>> stream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream', 'latin1'),
    ]),
  );

const objectBytes = (number: number, body: Uint8Array) =>
  Buffer.concat([Buffer.from(`${number} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);

function indirectObject(number: number, object: PDFObject): Buffer {
  const body = Buffer.alloc(object.sizeInBytes());
  object.copyBytesInto(body, 0);
  return objectBytes(number, body);
}

/**
 * The draft written again: its objects in their order, each as it was or as `replaced` has it (null:
 * left out, a free entry), new object numbers (at or past the draft's size) after them, then a
 * cross-reference table and trailer for the lot. One section, as Chromium writes it, so the result
 * reads like any print of it.
 */
function rewrite(draft: DraftPdf, replaced: Map<number, Uint8Array | null>, size: number): Buffer {
  const order = [...draft.offsets].sort((a, b) => a[1] - b[1]);
  const parts: Uint8Array[] = [draft.bytes.subarray(0, order[0]?.[1] ?? 0)];
  let at = parts[0]!.length;
  const offsets = new Map<number, number>();
  const put = (number: number, bytes: Uint8Array) => {
    offsets.set(number, at);
    parts.push(bytes);
    at += bytes.length;
  };
  // Unchanged objects (all but a few dozen of ~1,600) are copied a run at a time, one slice for each
  // stretch between changed ones, not one per object.
  let run = -1; // where the current run of unchanged objects starts in the draft, -1 outside one
  let runAt = 0; // and in the output
  const endRun = (end: number) => {
    if (run < 0) return;
    parts.push(draft.bytes.subarray(run, end));
    at = runAt + (end - run);
    run = -1;
  };
  for (const [number, offset] of order) {
    const bytes = replaced.get(number);
    if (bytes === undefined) {
      if (run < 0) [run, runAt] = [offset, at];
      offsets.set(number, runAt + (offset - run));
      continue;
    }
    endRun(offset);
    if (bytes !== null) put(number, bytes);
  }
  endRun(draft.startXref);
  for (const [number, bytes] of replaced) if (bytes && !draft.offsets.has(number)) put(number, bytes);
  const rows = ['0000000000 65535 f \n'];
  for (let number = 1; number < size; number++) {
    const offset = offsets.get(number);
    rows.push(
      offset === undefined ? '0000000000 00001 f \n' : `${String(offset).padStart(10, '0')} 00000 n \n`,
    );
  }
  const info = draft.info ? ` /Info ${draft.info.objectNumber} 0 R` : '';
  const id = draft.id ? ` ${draft.id}` : '';
  parts.push(
    Buffer.from(
      `xref\n0 ${size}\n${rows.join('')}trailer\n<< /Size ${size} /Root ${draft.root.objectNumber} 0 R${info}${id} >>\nstartxref\n${at}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}
