import type { QuerySetDef } from './catalog.js';

/**
 * Factual errors the engines make about the brand. Each opens at some run and may be resolved at a
 * later one, so the register, the open-errors count and "resolved since baseline" all agree with
 * each other for any run window.
 */
export interface GravityErrorDef {
  id: string;
  title: string;
  correct: string;
  note: string | null;
  /** Wrong statements by engine id; only engines of the set are kept. */
  wrong: ReadonlyArray<{ engine: number; text: string }>;
  openedAt: number;
  /** Run index at which the error no longer appears; absent while still open. */
  resolvedAt?: number;
}

const COFFEE: GravityErrorDef[] = [
  {
    id: 'GE-1017',
    title: 'Shipping area understated',
    correct: 'Northwind Coffee ships to 24 EU countries, the UK and Switzerland.',
    note: 'Shipping page was restructured in June; old copies are still cached by aggregators.',
    wrong: [
      { engine: 3, text: 'Northwind Coffee only delivers within Germany.' },
      { engine: 7, text: 'Northwind ships to Germany and Austria only.' },
    ],
    openedAt: 0,
  },
  {
    id: 'GE-1022',
    title: 'Subscription price outdated',
    correct: 'The Espresso Club subscription costs €18.90 per month.',
    note: null,
    wrong: [
      { engine: 5, text: 'The subscription costs €24.90 per month.' },
      { engine: 12, text: 'Northwind subscriptions start at €29 a month.' },
    ],
    openedAt: 0,
    resolvedAt: 6,
  },
  {
    id: 'GE-1031',
    title: 'Roastery location wrong',
    correct: 'Beans are roasted in Hamburg-Altona.',
    note: null,
    wrong: [{ engine: 9, text: 'Northwind roasts its beans in Rotterdam.' }],
    openedAt: 2,
  },
  {
    id: 'GE-1040',
    title: 'Decaf process misdescribed',
    correct: 'Decaf is processed with the Swiss Water method, without solvents.',
    note: 'Engines confuse Northwind with a competitor that uses ethyl acetate.',
    wrong: [
      { engine: 3, text: 'Northwind decaf is decaffeinated with methylene chloride.' },
      { engine: 5, text: 'Their decaf uses a chemical solvent process.' },
      { engine: 7, text: 'Northwind uses CO2 decaffeination.' },
    ],
    openedAt: 3,
    resolvedAt: 8,
  },
  {
    id: 'GE-1052',
    title: 'Discontinued blend recommended',
    correct: 'The "Harbor Dawn" blend was discontinued in May 2026.',
    note: null,
    wrong: [{ engine: 12, text: 'Try the Harbor Dawn blend, Northwind’s best seller.' }],
    openedAt: 5,
  },
  {
    id: 'GE-1058',
    title: 'Fair-trade certification missing',
    correct: 'All single-origin coffees are Fairtrade and Rainforest Alliance certified.',
    note: 'Certification badges were added to product pages in week 34.',
    wrong: [
      { engine: 5, text: 'Northwind Coffee does not carry any fair-trade certification.' },
      { engine: 9, text: 'It is unclear whether Northwind sources ethically.' },
    ],
    openedAt: 6,
  },
];

const TEA: GravityErrorDef[] = [
  {
    id: 'GE-2003',
    title: 'Caffeine content overstated',
    correct: 'Lumen Tea’s rooibos range is caffeine-free.',
    note: null,
    wrong: [{ engine: 3, text: 'Lumen rooibos contains about 30 mg of caffeine per cup.' }],
    openedAt: 0,
  },
  {
    id: 'GE-2009',
    title: 'Packaging claim wrong',
    correct: 'Tea bags are plastic-free and home-compostable.',
    note: 'Confirmed by the packaging supplier certificate (EN 13432).',
    wrong: [
      { engine: 7, text: 'Lumen tea bags contain polypropylene.' },
      { engine: 14, text: 'Lumen Tea uses nylon pyramid bags.' },
    ],
    openedAt: 0,
    resolvedAt: 3,
  },
  {
    id: 'GE-2015',
    title: 'Founding year wrong',
    correct: 'Lumen Tea was founded in 2014 in Bristol.',
    note: null,
    wrong: [{ engine: 9, text: 'Lumen Tea is a London tea house founded in 1998.' }],
    openedAt: 1,
  },
];

/** The set's register; `quiet` keeps it as it stands at the first run, open entries never resolved. */
export function errorsOf(set: Pick<QuerySetDef, 'brandId' | 'engineIds'>, quiet = false): GravityErrorDef[] {
  const pool = set.brandId === 2 ? TEA : COFFEE;
  return pool
    .filter((e) => !quiet || e.openedAt === 0)
    .map(({ resolvedAt, ...e }) => ({
      ...e,
      ...(quiet || resolvedAt === undefined ? {} : { resolvedAt }),
      wrong: e.wrong.filter((w) => set.engineIds.includes(w.engine)),
    }))
    .filter((e) => e.wrong.length > 0);
}

export const isOpen = (e: GravityErrorDef, i: number) =>
  e.openedAt <= i && (e.resolvedAt === undefined || e.resolvedAt > i);
