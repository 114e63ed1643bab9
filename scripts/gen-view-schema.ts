/**
 * Writes src/report/check/view-schema.ts: the shape of the views report templates are rendered
 * with, as zod schemas, inferred from real renders (scripts/view-samples.ts). Run after changing
 * what html.ts or digest/html.ts hand to the templates: `npx tsx scripts/gen-view-schema.ts`
 * (test/report/view-schema.test.ts fails while the file is stale).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { captureViews, isHtml } from './view-samples.js';

type Shape =
  | { kind: 'string' | 'number' | 'boolean' | 'html' | 'unknown' | 'never' }
  | { kind: 'array'; element: Shape }
  | { kind: 'object'; fields: Map<string, { shape: Shape; seen: number }>; seen: number }
  | { kind: 'nullable'; inner: Shape }
  | { kind: 'union'; options: Shape[] };

function infer(value: unknown): Shape {
  if (value === null || value === undefined) return { kind: 'nullable', inner: { kind: 'never' } };
  if (isHtml(value)) return { kind: 'html' };
  if (Array.isArray(value)) {
    return { kind: 'array', element: value.map(infer).reduce(merge, { kind: 'never' } as Shape) };
  }
  if (value instanceof Date) return { kind: 'string' };
  if (typeof value === 'object') {
    const fields = new Map<string, { shape: Shape; seen: number }>();
    for (const [key, child] of Object.entries(value)) {
      if (child === undefined) continue;
      fields.set(key, { shape: infer(child), seen: 1 });
    }
    return { kind: 'object', fields, seen: 1 };
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return { kind: typeof value as 'string' };
  }
  return { kind: 'unknown' };
}

function merge(a: Shape, b: Shape): Shape {
  if (a.kind === 'never') return b;
  if (b.kind === 'never') return a;
  if (a.kind === 'nullable' || b.kind === 'nullable') {
    const inner = merge(a.kind === 'nullable' ? a.inner : a, b.kind === 'nullable' ? b.inner : b);
    return { kind: 'nullable', inner };
  }
  if (a.kind === 'object' && b.kind === 'object') {
    const fields = new Map(a.fields);
    for (const [key, field] of b.fields) {
      const have = fields.get(key);
      fields.set(key, have ? { shape: merge(have.shape, field.shape), seen: have.seen + field.seen } : field);
    }
    return { kind: 'object', fields, seen: a.seen + b.seen };
  }
  if (a.kind === 'array' && b.kind === 'array')
    return { kind: 'array', element: merge(a.element, b.element) };
  if (a.kind === b.kind) return a;
  const options = [...(a.kind === 'union' ? a.options : [a]), ...(b.kind === 'union' ? b.options : [b])];
  const kinds = new Map<string, Shape>();
  for (const option of options)
    kinds.set(option.kind, kinds.has(option.kind) ? merge(kinds.get(option.kind)!, option) : option);
  return { kind: 'union', options: [...kinds.values()] };
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function emit(shape: Shape, indent: string): string {
  switch (shape.kind) {
    case 'never':
    case 'unknown':
      return 'z.unknown()';
    case 'string':
    case 'number':
    case 'boolean':
      return `z.${shape.kind}()`;
    case 'html':
      return 'html';
    case 'nullable':
      return shape.inner.kind === 'never' ? 'z.unknown()' : `${emit(shape.inner, indent)}.nullable()`;
    case 'array':
      return `z.array(${emit(shape.element, indent)})`;
    case 'union':
      return `z.union([${shape.options.map((o) => emit(o, indent)).join(', ')}])`;
    case 'object': {
      const inner = `${indent}  `;
      const lines = [...shape.fields].map(([key, field]) => {
        const name = IDENT.test(key) ? key : JSON.stringify(key);
        const optional = field.seen < shape.seen ? '.optional()' : '';
        const doc =
          DESCRIPTIONS[key] && indent === '  ' ? `.describe(${JSON.stringify(DESCRIPTIONS[key])})` : '';
        return `${inner}${name}: ${emit(field.shape, inner)}${optional}${doc},`;
      });
      return `z.strictObject({\n${lines.join('\n')}\n${indent}})`;
    }
  }
}

/** What each top-level value of a view is, for the reader of the schema and of `templates check`. */
const DESCRIPTIONS: Record<string, string> = {
  css: 'The stylesheet (report.css of the template folder), for <style>.',
  theme:
    "The report's look (reports[].theme): logo, colours, font, cover title, footer; theme.css overrides report.css's variables.",
  lang: 'The document language (BCP 47), for <html lang>.',
  page: 'Paper: size, orientation, the <body> class and the printable height in mm.',
  cover: 'The cover: brand, query set, run, engines, dates, title.',
  overview: 'The overview section: headline KPI cards, the summary, the competitive bar.',
  presence: 'The presence section: gross and weighted presence, trend, positions, engine × intent matrix.',
  life: 'The life (sentiment) section: KPIs, stance mix and history, by engine and by intent.',
  gravity: 'The gravity (sources) section: KPIs, trend, source mix, error register.',
  scout: 'The scout (citations) section: cited domains and URLs, by engine.',
  market: 'The market section: market metrics, fair share, competitors.',
  show: 'Which sections print (reports[].sections) and whether the report is the summary brief.',
  brief: "The brief's extra rows: top movers and open errors.",
  portfolio: "The digest's portfolio page: each set's headline KPIs.",
  movers: "The digest's biggest moves across its sets.",
  sets: "The digest's sets, each with its heading, contents page and full view.",
  frontOnly: "True on the digest's second pass, which prints only the cover and contents.",
  tocPending: 'True before page numbers are known (the contents hold placeholders).',
  portfolioPage: 'Page the portfolio starts on, once known.',
};

const views = captureViews();
const schema = (samples: unknown[]) => emit(samples.map(infer).reduce(merge, { kind: 'never' }), '');
const source = `// Generated by scripts/gen-view-schema.ts from real renders; do not edit by hand.
import Handlebars from 'handlebars';
import { z } from 'zod';

/**
 * The views report templates are rendered with: \`reportViewSchema\` for report.hbs (and each set of a
 * digest), \`digestViewSchema\` for digest.hbs, \`marginViewSchema\` for header.hbs and footer.hbs.
 * \`reportd templates check\` reads a template's variables against them; an optional key is one some
 * views lack (a section whose data is unavailable, say). \`html\` is markup reportd made (a chart).
 */

/** Markup reportd drew (charts, the stylesheet): printed as is, never escaped. */
const html = z.instanceof(Handlebars.SafeString).describe('markup reportd made');

export const reportViewSchema = ${schema(views.report)};

export const digestViewSchema = ${schema(views.digest)};

export const marginViewSchema = ${schema(views.margin)};

export type ReportView = z.infer<typeof reportViewSchema>;
export type DigestView = z.infer<typeof digestViewSchema>;
export type MarginView = z.infer<typeof marginViewSchema>;
`;
const file = fileURLToPath(new URL('../src/report/check/view-schema.ts', import.meta.url));
writeFileSync(file, source);
process.stdout.write(`wrote ${file}\n`);
