import { PDFArray, PDFDict, PDFName, PDFNull, PDFNumber, type PDFObject, PDFRef } from 'pdf-lib';
import { type DraftPdf, dictAt, objectAt } from '../pdf-index.js';

/**
 * The structure tree let go of the marked content that artifacts.ts made decoration. Chromium tags a
 * table's rules and backgrounds, a box's border, as the content of the element they belong to (the
 * /Table, a /TD, a /NonStruct box: an MCID among its kids); once their sequence is an artifact, that
 * MCID is no longer in the page, and a structure element pointing at content that does not exist is
 * as wrong for PDF/UA-1 (ISO 14289-1 §7.1; ISO 32000-1 §14.7.4) as content no element claims. So each
 * such MCID leaves its element's /K and its page's entry in the parent tree (set to null: the array
 * is indexed by MCID). An element left with no kids at all is taken out of its parent and its object
 * freed, unless it is part of a table's grid (an empty cell keeps the rows and columns in place) or
 * has an /ID (the ID tree points at it). In Chromium's output every such element keeps other kids.
 *
 * Only the objects on the way are parsed: the parent tree's number array, one array a page, and the
 * elements concerned (about two dozen in an 11-page report).
 */

/** Table parts keep their place without content: the grid's rows and columns must stay whole. */
const TABLE_PARTS = new Set(['/Table', '/THead', '/TBody', '/TFoot', '/TR', '/TH', '/TD']);

const name = (key: string) => PDFName.of(key);

/**
 * The objects to write again (null: freed) once `removed` (page object number → the MCIDs its content
 * no longer holds) is gone from the structure tree. Throws when the tree is not laid out as Chromium
 * writes it (an indirect marked-content reference, a parent tree with /Kids…): the caller then keeps
 * the decoration tagged rather than leave the tree pointing at nothing.
 */
export function releaseMarkedContent(
  draft: DraftPdf,
  removed: Map<number, number[]>,
): Map<number, PDFObject | null> {
  const edits = new Edits(draft);
  if (removed.size === 0) return edits.changed;
  const tree = dictAt(draft, refAt(dictAt(draft, draft.root), 'StructTreeRoot'));
  const nums = resolve(draft, dictAt(draft, refAt(tree, 'ParentTree')).get(name('Nums')));
  if (!(nums instanceof PDFArray)) throw new Error('a parent tree without /Nums');
  const entries = new Map<number, PDFObject>();
  for (let k = 0; k + 1 < nums.size(); k += 2) entries.set(numberAt(nums.get(k)), nums.get(k + 1));
  for (const [page, mcids] of removed) {
    const key = numberAt(dictAt(draft, PDFRef.of(page)).get(name('StructParents')));
    const entry = entries.get(key);
    if (!(entry instanceof PDFRef)) throw new Error(`page ${page} has no parent tree array`);
    const parents = edits.array(entry);
    for (const mcid of mcids) {
      const element = parents.get(mcid);
      if (!(element instanceof PDFRef)) throw new Error(`MCID ${mcid} of page ${page} has no element`);
      parents.set(mcid, PDFNull);
      const dict = edits.dict(element);
      if (!dropKid(dict, page, mcid)) throw new Error(`MCID ${mcid} is not a kid of its element`);
      if (kidsOf(dict).length === 0) prune(element, dict, edits);
    }
  }
  return edits.changed;
}

/** The objects edited so far (null: freed), each parsed from the draft once. */
class Edits {
  readonly changed = new Map<number, PDFObject | null>();
  constructor(private readonly draft: DraftPdf) {}

  private object(ref: PDFRef): PDFObject {
    const object = this.changed.get(ref.objectNumber) ?? objectAt(this.draft, ref);
    this.changed.set(ref.objectNumber, object);
    return object;
  }

  dict(ref: PDFRef): PDFDict {
    const object = this.object(ref);
    if (!(object instanceof PDFDict)) throw new Error(`object ${ref.objectNumber} is not a dictionary`);
    return object;
  }

  array(ref: PDFRef): PDFArray {
    const object = this.object(ref);
    if (!(object instanceof PDFArray)) throw new Error(`object ${ref.objectNumber} is not an array`);
    return object;
  }

  free(ref: PDFRef): void {
    this.changed.set(ref.objectNumber, null);
  }
}

/** Removes the marked-content kid `mcid` of `page` from `element`'s /K; whether it was there. */
function dropKid(element: PDFDict, page: number, mcid: number): boolean {
  const ownPage = element.get(name('Pg'));
  const onPage = (pg: PDFObject | undefined) => pg instanceof PDFRef && pg.objectNumber === page;
  const kids = kidsOf(element);
  const kept = kids.filter((kid) => {
    if (kid instanceof PDFNumber) return !(kid.asNumber() === mcid && onPage(ownPage));
    if (!(kid instanceof PDFDict) || kid.get(name('Type')) !== name('MCR')) return true;
    const same = numberAt(kid.get(name('MCID'))) === mcid && kid.get(name('Stm')) === undefined;
    return !(same && onPage(kid.get(name('Pg')) ?? ownPage));
  });
  if (kept.length === kids.length) return false;
  if (kept.length === 0) element.delete(name('K'));
  else element.set(name('K'), kept.length === 1 ? kept[0]! : element.context.obj(kept));
  return true;
}

/** An element with no kids left: out of its parent (and freed), and the parent pruned in turn. */
function prune(ref: PDFRef, element: PDFDict, edits: Edits): void {
  const type = element.get(name('S'));
  if ((type instanceof PDFName && TABLE_PARTS.has(type.asString())) || element.has(name('ID'))) return;
  const parentRef = element.get(name('P'));
  if (!(parentRef instanceof PDFRef)) return;
  const parent = edits.dict(parentRef);
  if (parent.get(name('Type')) === name('StructTreeRoot')) return; // the root keeps what it has
  const kids = kidsOf(parent).filter(
    (kid) => !(kid instanceof PDFRef && kid.objectNumber === ref.objectNumber),
  );
  if (kids.length === 0) parent.delete(name('K'));
  else parent.set(name('K'), parent.context.obj(kids));
  edits.free(ref);
  if (kids.length === 0) prune(parentRef, parent, edits);
}

function kidsOf(element: PDFDict): PDFObject[] {
  const kids = element.get(name('K'));
  if (kids === undefined) return [];
  return kids instanceof PDFArray ? kids.asArray() : [kids];
}

function refAt(dict: PDFDict, key: string): PDFRef {
  const value = dict.get(name(key));
  if (!(value instanceof PDFRef)) throw new Error(`no /${key}`);
  return value;
}

const resolve = (draft: DraftPdf, value: PDFObject | undefined) =>
  value instanceof PDFRef ? objectAt(draft, value) : value;

function numberAt(value: PDFObject | undefined): number {
  if (!(value instanceof PDFNumber)) throw new Error('a number expected');
  return value.asNumber();
}
