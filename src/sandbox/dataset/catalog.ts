import type { OffsetRule } from './calendar.js';

/**
 * The fictional company behind the sandbox: who it is, which engines and intents it tracks and who it
 * competes with. Ids are deliberately sparse and unrelated to array positions (engine 3, 5, 7…), so a
 * client that confuses an index with an id shows wrong numbers instead of passing by luck.
 */

/** Image URLs point at a host that does not exist: reportd must never load remote images. */
export const CDN = 'http://cdn.sandbox-assets.example';

export interface EngineDef {
  id: number;
  name: string;
  color: string;
  model: string;
  slug: string;
  /** Sources an answer of this engine cites on average (answer engines differ a lot here). */
  citesPerAnswer: number;
}

export const ENGINES: readonly EngineDef[] = [
  { id: 3, name: 'ChatGPT', color: '#10A37F', model: 'gpt-4o', slug: 'chatgpt', citesPerAnswer: 1.2 },
  { id: 5, name: 'Gemini', color: '#4285F4', model: 'gemini-2.5-pro', slug: 'gemini', citesPerAnswer: 1.8 },
  {
    id: 7,
    name: 'Perplexity',
    color: '#20808D',
    model: 'sonar-pro',
    slug: 'perplexity',
    citesPerAnswer: 3.5,
  },
  { id: 9, name: 'Claude', color: '#D97757', model: 'claude-sonnet-4', slug: 'claude', citesPerAnswer: 0.6 },
  {
    id: 12,
    name: 'Copilot',
    color: '#7F5AF0',
    model: 'gpt-4o (Copilot)',
    slug: 'copilot',
    citesPerAnswer: 2.5,
  },
  {
    id: 14,
    name: 'Google AI Overviews',
    color: '#FBBC05',
    model: 'gemini-2.5-flash',
    slug: 'aio',
    citesPerAnswer: 2.5,
  },
];

export const engineImage = (engine: EngineDef) => `${CDN}/engines/${engine.slug}.png`;

export interface IntentDef {
  id: number;
  label: string;
  stage: 'awareness' | 'consideration' | 'decision' | 'retention';
  /** Intent commercial value: an integer weight the API sends as `icv`. */
  icv: number;
}

export interface CompetitorDef {
  id: number;
  name: string;
  color: string;
  /** Monitored competitors are `isTargeted` in share entries and get a citation category. */
  targeted: boolean;
  /** Relative weight of the competitor's share of voice. */
  weight: number;
}

export interface BrandDef {
  id: number;
  name: string;
  color: string;
  domain: string;
  offset: OffsetRule;
}

export interface QuerySetDef {
  id: number;
  brandId: number;
  /** The company that owns the set; only company 1 is the sandbox credential's. */
  companyId: number;
  name: string;
  createdAt: number;
  queriesCount: number;
  engineIds: readonly number[];
  intents: readonly IntentDef[];
  competitors: readonly CompetitorDef[];
  /** Competitors beyond the listed ones, summarised in one aggregate share entry. */
  otherCompetitors: number;
  /** First run period (ISO week of 2026) and weeks between runs; `runs` periods are published. */
  firstWeek: number;
  stepWeeks: number;
  runs: number;
}

export const COMPANY_ID = 1;

export const BRANDS: readonly BrandDef[] = [
  { id: 1, name: 'Northwind Coffee', color: '#8B5E3C', domain: 'northwindcoffee.com', offset: 'berlin' },
  { id: 2, name: 'Lumen Tea', color: '#2E8B57', domain: 'lumentea.co.uk', offset: 'utc' },
];

const coffeeCompetitors: CompetitorDef[] = [
  { id: 311, name: 'Blue Harbor Roasters', color: '#1F77B4', targeted: true, weight: 0.19 },
  { id: 312, name: 'Copperline Coffee Co.', color: '#FF7F0E', targeted: true, weight: 0.14 },
  { id: 313, name: 'Alder & Ash', color: '#9467BD', targeted: true, weight: 0.1 },
  { id: 314, name: 'Kestrel Beans', color: '#D62728', targeted: false, weight: 0.07 },
  { id: 315, name: 'Morning Ridge', color: '#17BECF', targeted: false, weight: 0.05 },
];

const teaCompetitors: CompetitorDef[] = [
  { id: 411, name: 'Camellia House', color: '#1F77B4', targeted: true, weight: 0.22 },
  { id: 412, name: 'Tidewater Teas', color: '#FF7F0E', targeted: true, weight: 0.15 },
  { id: 413, name: 'Jade Kettle', color: '#9467BD', targeted: false, weight: 0.08 },
];

export const QUERY_SETS: readonly QuerySetDef[] = [
  {
    id: 101,
    brandId: 1,
    companyId: COMPANY_ID,
    name: 'Northwind — Core buying journeys',
    createdAt: Date.UTC(2026, 5, 22, 8, 41, 7),
    queriesCount: 240,
    engineIds: [3, 5, 7, 9, 12],
    intents: [
      { id: 41, label: 'Best coffee beans for espresso', stage: 'consideration', icv: 340 },
      { id: 42, label: 'Coffee subscription comparison', stage: 'decision', icv: 520 },
      { id: 43, label: 'How to brew pour-over at home', stage: 'awareness', icv: 90 },
      { id: 44, label: 'Sustainable and fair-trade coffee', stage: 'awareness', icv: 160 },
      { id: 45, label: 'Where to buy specialty coffee online', stage: 'decision', icv: 610 },
      { id: 46, label: 'Reorder and loyalty perks', stage: 'retention', icv: 210 },
    ],
    competitors: coffeeCompetitors,
    otherCompetitors: 7,
    firstWeek: 28,
    stepWeeks: 1,
    runs: 10,
  },
  {
    id: 102,
    brandId: 1,
    companyId: COMPANY_ID,
    name: 'Northwind — Office & wholesale',
    createdAt: Date.UTC(2026, 6, 6, 13, 2, 51),
    queriesCount: 80,
    engineIds: [3, 5, 7, 12],
    intents: [
      { id: 51, label: 'Office coffee machine service', stage: 'consideration', icv: 780 },
      { id: 52, label: 'Wholesale coffee for cafés', stage: 'decision', icv: 950 },
      { id: 53, label: 'Coffee for events and catering', stage: 'awareness', icv: 300 },
      { id: 54, label: 'Bulk decaf options', stage: 'consideration', icv: 240 },
    ],
    competitors: coffeeCompetitors.slice(0, 3),
    otherCompetitors: 4,
    firstWeek: 29,
    stepWeeks: 4,
    runs: 3,
  },
  {
    id: 103,
    brandId: 1,
    companyId: COMPANY_ID,
    name: 'Northwind — Holiday gifting (draft)',
    createdAt: Date.UTC(2026, 8, 9, 10, 30, 0),
    queriesCount: 45,
    engineIds: [3, 5, 9],
    intents: [
      { id: 61, label: 'Coffee gift sets', stage: 'consideration', icv: 410 },
      { id: 62, label: 'Last-minute gifts for coffee lovers', stage: 'decision', icv: 380 },
    ],
    competitors: coffeeCompetitors.slice(0, 2),
    otherCompetitors: 3,
    firstWeek: 38,
    stepWeeks: 1,
    runs: 0,
  },
  {
    id: 201,
    brandId: 2,
    companyId: COMPANY_ID,
    name: 'Lumen Tea — Everyday tea',
    createdAt: Date.UTC(2026, 6, 1, 9, 0, 12),
    queriesCount: 120,
    engineIds: [3, 5, 7, 9, 14],
    intents: [
      { id: 71, label: 'Best green tea for beginners', stage: 'awareness', icv: 120 },
      { id: 72, label: 'Loose leaf vs tea bags', stage: 'consideration', icv: 150 },
      { id: 73, label: 'Tea subscription boxes', stage: 'decision', icv: 460 },
      { id: 74, label: 'Caffeine-free evening teas', stage: 'consideration', icv: 200 },
    ],
    competitors: teaCompetitors,
    otherCompetitors: 5,
    firstWeek: 31,
    stepWeeks: 2,
    runs: 4,
  },
  {
    // Exists, but belongs to another company: the sandbox credential must get -132 for it.
    id: 999,
    brandId: 9,
    companyId: 2,
    name: 'Foreign company set',
    createdAt: Date.UTC(2026, 4, 1, 12, 0, 0),
    queriesCount: 10,
    engineIds: [3],
    intents: [{ id: 99, label: 'Not yours', stage: 'awareness', icv: 1 }],
    competitors: [],
    otherCompetitors: 0,
    firstWeek: 20,
    stepWeeks: 1,
    runs: 2,
  },
];

export function engineById(id: number): EngineDef {
  const engine = ENGINES.find((e) => e.id === id);
  if (!engine) throw new Error(`sandbox dataset: unknown engine ${id}`);
  return engine;
}

export function brandById(id: number): BrandDef | undefined {
  return BRANDS.find((b) => b.id === id);
}
