import { execFileSync } from 'node:child_process';

/**
 * What qpdf reads of a PDF's marked content against its structure tree (never reportd's own code):
 * each marked-content sequence with an MCID (in a page's content or in a form XObject it paints) that
 * no structure element claims, each MCID the structure tree (an element's kids, a page's parent tree
 * array) points at that the content does not hold, and each /Table structure element with no /TH
 * cell under it. A sequence no element claims is content assistive technology never reads (PDF/UA-1
 * §7.1); an element pointing at content that is not there is a broken tree (ISO 32000-1 §14.7.4); a
 * table without header cells is a grid of values with nothing to name them (§7.5).
 */
export interface MarkedContentReport {
  /** "page 3: MCID 7" (or "XObject 12 0 R: MCID 0") for every sequence outside the structure tree. */
  orphans: string[];
  /**
   * "page 3: MCID 7 in /Table" for every marked-content kid of a structure element, and "page 3: MCID
   * 7 in the parent tree" for every parent tree entry, whose MCID the content does not hold.
   */
  dangling: string[];
  /** How many MCID sequences the content holds in all. */
  sequences: number;
  /** /Table elements, and those with no /TH cell. */
  tables: number;
  tablesWithoutHeaders: number;
}

type Json = Record<string, unknown>;
interface QpdfObject {
  value?: unknown;
  stream?: { dict: Json; data?: string };
}

const MCID = /<<\s*\/MCID\s+(\d+)\s*>>\s*BDC/g;

export function readMarkedContent(file: string): MarkedContentReport {
  const json = JSON.parse(
    execFileSync('qpdf', ['--json=2', '--json-stream-data=inline', '--decode-level=generalized', file], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    }),
  );
  const objects = json.qpdf[1] as Record<string, QpdfObject>;
  const at = (ref: string) => objects[`obj:${ref}`];
  const dictOf = (ref: string) => (at(ref)?.value ?? at(ref)?.stream?.dict) as Json | undefined;
  // Claimed: "<page or stream ref> <mcid>", from every structure element's kids, with its type.
  const claimed = new Map<string, string>();
  const elements = new Map<string, Json>();
  for (const [key, object] of Object.entries(objects)) {
    const value = object.value as Json | undefined;
    if (value?.['/Type'] === '/StructElem') elements.set(key.slice(4), value);
  }
  for (const element of elements.values()) {
    for (const kid of [element['/K']].flat()) {
      const page = element['/Pg'] as string | undefined;
      if (typeof kid === 'number') claimed.set(`${page} ${kid}`, String(element['/S']));
      const mcr = (typeof kid === 'string' ? dictOf(kid) : kid) as Json | undefined;
      if (mcr && typeof mcr === 'object' && mcr['/Type'] === '/MCR')
        claimed.set(
          `${(mcr['/Stm'] as string | undefined) ?? (mcr['/Pg'] as string | undefined) ?? page} ${mcr['/MCID']}`,
          String(element['/S']),
        );
    }
  }
  const orphans: string[] = [];
  const present = new Set<string>();
  let sequences = 0;
  const scan = (owner: string, label: string, data: string | undefined) => {
    const text = Buffer.from(data ?? '', 'base64').toString('latin1');
    for (const match of text.matchAll(MCID)) {
      sequences++;
      present.add(`${owner} ${match[1]}`);
      if (!claimed.has(`${owner} ${match[1]}`)) orphans.push(`${label}: MCID ${match[1]}`);
    }
  };
  const seenForms = new Set<string>();
  for (const page of json.pages as { object: string; contents: string[]; pageposfrom1: number }[]) {
    for (const ref of page.contents) scan(page.object, `page ${page.pageposfrom1}`, at(ref)?.stream?.data);
    const resources = dictOf(page.object)?.['/Resources'] as Json | string | undefined;
    const xobjects = (typeof resources === 'string' ? dictOf(resources) : resources)?.['/XObject'] as
      | Record<string, string>
      | undefined;
    for (const ref of Object.values(xobjects ?? {})) {
      const stream = at(ref)?.stream;
      if (seenForms.has(ref) || stream?.dict['/Subtype'] !== '/Form') continue;
      seenForms.add(ref);
      scan(ref, `page ${page.pageposfrom1} XObject ${ref}`, stream.data);
    }
  }
  const pages = json.pages as { object: string; pageposfrom1: number }[];
  const pageLabel = new Map(pages.map((page) => [page.object, `page ${page.pageposfrom1}`]));
  const label = (owner: string) => pageLabel.get(owner) ?? `XObject ${owner}`;
  const dangling = [...claimed]
    .filter(([key]) => !present.has(key))
    .map(
      ([key, type]) =>
        `${label(key.slice(0, key.lastIndexOf(' ')))}: MCID ${key.split(' ').at(-1)} in ${type}`,
    );
  dangling.push(...danglingParents(objects, pages, present));
  // A table's header cells are TH elements anywhere under it (THead/TBody/TR in between).
  const hasHeader = (element: Json, depth = 0): boolean =>
    depth < 8 &&
    [element['/K']].flat().some((kid) => {
      const child = typeof kid === 'string' ? elements.get(kid) : undefined;
      return child !== undefined && (child['/S'] === '/TH' || hasHeader(child, depth + 1));
    });
  const tables = [...elements.values()].filter((element) => element['/S'] === '/Table');
  return {
    orphans,
    dangling,
    sequences,
    tables: tables.length,
    tablesWithoutHeaders: tables.filter((table) => !hasHeader(table)).length,
  };
}

/** The parent tree's entries, page by page, whose MCID the page's content does not hold. */
function danglingParents(
  objects: Record<string, QpdfObject>,
  pages: { object: string; pageposfrom1: number }[],
  present: Set<string>,
): string[] {
  const value = (ref: unknown) =>
    (typeof ref === 'string' ? objects[`obj:${ref}`]?.value : ref) as Json | undefined;
  const root = Object.values(objects).find(
    (o) => (o.value as Json | undefined)?.['/Type'] === '/StructTreeRoot',
  );
  const nums = value(value(value((root?.value as Json | undefined)?.['/ParentTree'])?.['/Nums'])) as unknown;
  const entries = new Map<number, unknown>();
  const flat = (Array.isArray(nums) ? nums : []) as unknown[];
  for (let k = 0; k + 1 < flat.length; k += 2) entries.set(flat[k] as number, flat[k + 1]);
  const found: string[] = [];
  for (const page of pages) {
    const key = value(page.object)?.['/StructParents'];
    const parents = value(entries.get(key as number)) as unknown;
    if (!Array.isArray(parents)) continue;
    parents.forEach((parent, mcid) => {
      if (parent !== null && !present.has(`${page.object} ${mcid}`))
        found.push(`page ${page.pageposfrom1}: MCID ${mcid} in the parent tree`);
    });
  }
  return found;
}
