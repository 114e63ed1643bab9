import { unit } from '../rng.js';
import type { BrandDef, QuerySetDef } from './catalog.js';

export type Control = 'owned' | 'partner' | 'external';

export interface SourceDef {
  name: string;
  control: Control;
  sourceType: string;
  /** How often answers cite the domain, relative to the others. */
  weight: number;
  /** Run index from which the source is cited at all (new sources appear over time). */
  from: number;
}

const EXTERNAL: ReadonlyArray<[string, string, number]> = [
  ['reddit.com', 'forum', 60],
  ['en.wikipedia.org', 'reference', 48],
  ['youtube.com', 'video', 41],
  ['nytimes.com', 'editorial', 33],
  ['amazon.com', 'retailer', 30],
  ['trustpilot.com', 'review', 26],
  ['seriouseats.com', 'editorial', 22],
  ['quora.com', 'forum', 19],
  ['theguardian.com', 'news', 17],
  ['forbes.com', 'news', 15],
  ['healthline.com', 'editorial', 14],
  ['medium.com', 'social', 12],
  ['bbcgoodfood.com', 'editorial', 11],
  ['instagram.com', 'social', 10],
  ['which.co.uk', 'review', 9],
  ['tripadvisor.com', 'review', 8],
  ['epicurious.com', 'editorial', 7],
  ['ebay.com', 'retailer', 6],
  ['pinterest.com', 'social', 6],
  ['bonappetit.com', 'editorial', 5],
  ['thespruceeats.com', 'editorial', 5],
  ['tiktok.com', 'social', 4],
];

const BY_BRAND: Record<number, ReadonlyArray<[string, Control, string, number]>> = {
  1: [
    ['northwindcoffee.com', 'owned', 'brand', 38],
    ['shop.northwindcoffee.com', 'owned', 'brand', 21],
    ['blog.northwindcoffee.com', 'owned', 'brand', 9],
    ['beanbox-marketplace.com', 'partner', 'retailer', 16],
    ['cafe-supply.de', 'partner', 'retailer', 7],
    ['coffeereview.com', 'external', 'review', 29],
    ['baristahustle.com', 'external', 'editorial', 8],
  ],
  2: [
    ['lumentea.co.uk', 'owned', 'brand', 31],
    ['learn.lumentea.co.uk', 'owned', 'brand', 8],
    ['teaclub-partners.co.uk', 'partner', 'retailer', 12],
    ['tea-and-co.de', 'partner', 'retailer', 5],
    ['teaforum.org', 'external', 'forum', 18],
    ['worldoftea.org', 'external', 'reference', 9],
  ],
};

/** The source landscape of a set: 28+ domains; a few only appear from later runs on (unless `quiet`). */
export function sourcesOf(set: Pick<QuerySetDef, 'id'>, brand: BrandDef, quiet = false): SourceDef[] {
  const own = (BY_BRAND[brand.id] ?? []).map(([name, control, sourceType, weight]) => ({
    name,
    control,
    sourceType,
    weight,
    from: 0,
  }));
  const external = EXTERNAL.map(([name, sourceType, weight], k) => ({
    name,
    control: 'external' as const,
    sourceType,
    weight: Math.max(2, Math.round(weight * (0.7 + 0.6 * unit(set.id, 'src', name)))),
    // The last few long-tail sources are discovered later in the set's life.
    from: !quiet && k >= EXTERNAL.length - 3 ? 1 + (k % 3) * 2 : 0,
  }));
  return [...own, ...external];
}
