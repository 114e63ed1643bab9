import { SaxesParser } from 'saxes';

/**
 * What an SVG logo would cost to draw, read before any renderer sees it: how many nodes its tree has
 * once every `<use>`, marker and `url(#…)` reference is expanded, and whether it refers to anything
 * outside the file. resvg refuses a tree past a million nodes, but a marker on every vertex of a long
 * path multiplies past that limit, and a million nodes already take seconds: this count is the bound.
 * It over-counts rather than under-counts (any prefix, any namespace, every reference as if it
 * applied), so no construct the renderer expands can slip under it.
 */

/** Most nodes an SVG logo may expand to: a detailed illustration has a few thousand. */
export const MAX_SVG_NODES = 20_000;

/** Deepest nesting read (the count below recurses once per level). */
const MAX_DEPTH = 512;

interface Element {
  name: string;
  id?: string;
  /** `href` / `xlink:href` (any prefix): what a `<use>` or `<image>` points at. */
  href?: string;
  /** Ids named by `url(#id)` in its attributes and style. */
  refs: string[];
  /** An upper bound of a shape's vertices (numbers in `d` / `points`): markers repeat per vertex. */
  vertices: number;
  children: number[];
}

/** `\75rl(` → `url(`: CSS escapes undone, so an escaped reference is still seen. */
function cssUnescape(text: string): string {
  return text
    .replace(/\\([0-9a-fA-F]{1,6})\s?/g, (_, hex: string) =>
      String.fromCodePoint(Number.parseInt(hex, 16) || 0xfffd),
    )
    .replace(/\\(.)/g, '$1');
}

function urlRefs(text: string): string[] {
  return [...cssUnescape(text).matchAll(/url\(\s*["']?\s*#([^"')\s]+)/gi)].map((m) => m[1]!);
}

const localName = (name: string) => name.slice(name.indexOf(':') + 1).toLowerCase();

/** Raster images an SVG may embed: as data: URLs only, and of a format the raster checks read. */
const EMBEDDED_IMAGE = /^data:image\/(png|jpeg);base64,/i;

export type SvgReading =
  | { ok: true; nodes: number; images: { type: 'png' | 'jpeg'; base64: string }[] }
  | { ok: false; reason: string };

interface Parsed {
  elements: Element[];
  /** Ids a stylesheet (`<style>`) names with url(#…): its selectors may apply them to any element. */
  styleRefs: string[];
}

function parse(text: string): Parsed | string {
  const elements: Element[] = [];
  const open: number[] = [];
  let styles = '';
  const parser = new SaxesParser({ xmlns: false, position: true });
  let problem: string | undefined;
  parser.on('doctype', (doctype) => {
    // An internal subset is where entities are declared: a billion-laughs file needs one.
    if (doctype.includes('[')) problem = 'it declares entities (a DOCTYPE with an internal subset)';
  });
  parser.on('opentag', (tag) => {
    const element: Element = { name: localName(tag.name), refs: [], vertices: 0, children: [] };
    for (const [name, value] of Object.entries(tag.attributes)) {
      const local = localName(name);
      if (local === 'id') element.id = value;
      else if (local === 'href') element.href = value.trim();
      else if (local === 'd' || local === 'points')
        element.vertices += (value.match(/[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/gi) ?? []).length;
      element.refs.push(...urlRefs(value));
    }
    if (element.name === 'line') element.vertices = 2;
    const index = elements.push(element) - 1;
    if (open.length > 0) elements[open.at(-1)!]!.children.push(index);
    open.push(index);
    if (open.length > MAX_DEPTH) problem ??= `it nests elements more than ${MAX_DEPTH} deep`;
  });
  parser.on('closetag', () => {
    open.pop();
  });
  const styleText = (value: string) => {
    if (open.length > 0 && elements[open.at(-1)!]!.name === 'style') styles += value;
  };
  parser.on('text', styleText);
  parser.on('cdata', styleText);
  parser.on('error', (error) => {
    throw error;
  });
  try {
    parser.write(text).close();
  } catch (error) {
    return problem ?? `it is not well-formed XML (${(error as Error).message.split('\n')[0]})`;
  }
  if (problem) return problem;
  return { elements, styleRefs: urlRefs(styles) };
}

/**
 * Reads an SVG document: refused (with the reason) when it is not one, declares entities, refers to
 * anything outside itself, or expands past `MAX_SVG_NODES`; else its node count and embedded images.
 */
export function readSvg(text: string, maxNodes = MAX_SVG_NODES): SvgReading {
  const parsed = parse(text);
  if (typeof parsed === 'string') return { ok: false, reason: parsed };
  const { elements, styleRefs } = parsed;
  if (elements[0]?.name !== 'svg') return { ok: false, reason: 'it is not an SVG document (no <svg> root)' };
  const byId = new Map<string, number[]>();
  elements.forEach((element, index) => {
    if (element.id !== undefined) byId.set(element.id, [...(byId.get(element.id) ?? []), index]);
  });
  const images: { type: 'png' | 'jpeg'; base64: string }[] = [];
  for (const element of elements) {
    const href = element.href;
    if (href === undefined || href.startsWith('#')) continue;
    const embedded = EMBEDDED_IMAGE.exec(href);
    if (element.name === 'image' && embedded) {
      images.push({
        type: embedded[1]!.toLowerCase() as 'png' | 'jpeg',
        base64: href.slice(embedded[0].length),
      });
      continue;
    }
    const shown = href.length > 60 ? `${href.slice(0, 57)}…` : href;
    return {
      ok: false,
      reason: `it refers to something outside the file (href="${shown}"): embed the picture as a PNG or JPEG data: URL, or draw it`,
    };
  }
  // Nodes each element expands to, memoised; `visiting` finds references that loop.
  const cost = new Map<number, number>();
  const visiting = new Set<number>();
  let looped = false;
  const expand = (index: number): number => {
    const known = cost.get(index);
    if (known !== undefined) return known;
    if (visiting.has(index)) {
      // A loop draws forever: remember it and count it as over the limit.
      looped = true;
      return maxNodes + 1;
    }
    visiting.add(index);
    const element = elements[index]!;
    let total = 1;
    const add = (value: number) => {
      total = Math.min(total + value, maxNodes + 1);
    };
    for (const child of element.children) add(expand(child));
    const own = [...element.refs, ...(element.href?.startsWith('#') ? [element.href.slice(1)] : [])];
    // A stylesheet's references are counted on every element they could apply to (not their own).
    const styled = styleRefs.flatMap((id) => byId.get(id) ?? []).filter((target) => !visiting.has(target));
    const targets = [...own.flatMap((id) => byId.get(id) ?? []), ...styled];
    for (const target of targets) {
      const each = expand(target);
      // A marker is drawn at every vertex of the shape that names it.
      add(elements[target]!.name === 'marker' ? each * (element.vertices + 2) : each);
    }
    visiting.delete(index);
    cost.set(index, total);
    return total;
  };
  const nodes = expand(0);
  if (looped) return { ok: false, reason: 'a <use> or url(#…) reference refers to itself' };
  if (nodes > maxNodes)
    return {
      ok: false,
      reason: `it expands to more than ${maxNodes.toLocaleString('en-US')} nodes (through <use>, markers or url(#…) references)`,
    };
  return { ok: true, nodes, images };
}
