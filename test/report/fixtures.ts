import type { ReportSnapshot } from '../../src/report/model/snapshot.js';

/**
 * A complete, schema-valid snapshot of all 34 metric payloads, built by hand with the sandbox's scales
 * (src/sandbox/payloads/context.ts): presence in percent points, shares and stances as fractions,
 * source distribution in percent points. Deterministic, so tests can look for exact formatted values.
 */

const ENGINES = [
  { id: 1, label: 'ChatGPT', color: '#10A37F' },
  { id: 2, label: 'Perplexity', color: '#1F6FEB' },
  { id: 3, label: 'Gemini', color: '#8E44AD' },
  { id: 4, label: 'Claude', color: '#D97757' },
  { id: 5, label: 'Copilot', color: '#0078D4' },
];
const INTENTS = [
  { id: 11, label: 'Best coffee subscription', stage: 'consideration', icv: 1200 },
  { id: 12, label: 'Ethically sourced beans', stage: 'awareness', icv: 860 },
  { id: 13, label: 'Espresso machine pairing', stage: 'consideration', icv: 540 },
  { id: 14, label: 'Office coffee delivery', stage: 'decision', icv: 430 },
  { id: 15, label: 'Decaf that tastes good', stage: 'awareness', icv: 310 },
  { id: 16, label: 'Coffee gift ideas', stage: 'decision', icv: 280 },
];
const LABELS = ['W36 2026', 'W38 2026', 'W40 2026', 'W42 2026', 'W44 2026', 'W46 2026'];
const image = (id: number) => `https://cdn.example.com/engines/${id}.png`;
const withImage = ENGINES.map((engine) => ({ ...engine, image: image(engine.id) }));
const round = (value: number, digits = 1) => Number(value.toFixed(digits));
/** A gentle walk ending at `end`, for history arrays. */
const walk = (end: number, step: number, n = LABELS.length, digits = 1) =>
  Array.from({ length: n }, (_, i) => round(end - step * (n - 1 - i) + ((i * 7) % 3) * step * 0.3, digits));
const series = (current: number, delta: number, step: number) => {
  const history = walk(current, step);
  history[history.length - 1] = current;
  history[history.length - 2] = round(current - delta);
  return { current, delta, history, historyLabels: LABELS };
};
const metric = (current: number, delta: number, step: number, digits = 1) => {
  const history = walk(current, step, LABELS.length, digits);
  history[history.length - 1] = current;
  return { current, delta, history };
};
const stance = (rec: number, adv: number, neu: number, cau: number) => ({
  rec,
  adv,
  neu,
  cau,
  neg: round(1 - rec - adv - neu - cau, 3),
});
const byId = <T>(items: { id: number }[], value: (id: number, i: number) => T) =>
  Object.fromEntries(items.map((item, i) => [String(item.id), value(item.id, i)]));

export function fixturePayloads(): Record<string, unknown> {
  return {
    'overview.summary': {
      content:
        'Northwind Coffee is named in 43.7% of answers this week, up 2.1 points.\n' +
        'ChatGPT and Perplexity lead; Gemini lags on subscription intents.\n\n' +
        'Two factual errors remain open in the error register.',
    },
    'overview.competitive-context': {
      dStar: 0.241,
      fairShare: 0.167,
      shares: [
        { name: 'Northwind Coffee', share: 0.234, isBrand: true, isTargeted: true },
        { name: 'Blue Bottle', share: 0.198, isBrand: false, isTargeted: true },
        { name: 'Lavazza', share: 0.162, isBrand: false, isTargeted: true },
        { name: 'Illy', share: 0.121, isBrand: false, isTargeted: false },
        { name: 'Stumptown', share: 0.089, isBrand: false, isTargeted: false },
        { name: 'Other competitors (7)', share: 0.196, isBrand: false, isTargeted: false },
      ],
    },
    'presence.gross': series(43.7, 2.1, 1.2),
    'presence.weighted': {
      ...series(34.2, -0.8, 0.9),
      fairShare: 0.167,
      dStar: 0.241,
      classification: 'Leader',
    },
    'presence.position-distribution': {
      p1: 0.38,
      p2: 0.26,
      p3: 0.15,
      p4plus: 0.21,
      totalAnswers: 412,
      totalAll: 960,
      prev: { p1: 0.35, p2: 0.27, p3: 0.16, p4plus: 0.22 },
    },
    'presence.position-distribution-by-engine': {
      engines: ENGINES.map((engine, i) => ({
        ...engine,
        timesCited: 120 - i * 17,
        p1: round(0.42 - i * 0.03, 2),
        p2: 0.25,
        p3: 0.15,
        p4plus: round(0.18 + i * 0.03, 2),
        deltaTimesCited: 6 - i * 3,
      })),
      totals: { timesCited: 430, p1: 0.36, p2: 0.25, p3: 0.15, p4plus: 0.24, deltaTimesCited: -3 },
    },
    'presence.by-engine': {
      engines: withImage,
      presenceByEngine: byId(ENGINES, (_, i) => ({
        weighted: round(41.5 - i * 4.3),
        gross: round(50.2 - i * 4.1),
        delta: round(2.4 - i * 1.1),
      })),
    },
    'presence.by-intent': {
      intents: INTENTS,
      presenceByIntent: byId(INTENTS, (_, i) => ({
        weighted: round(52.3 - i * 6.1),
        gross: round(60.1 - i * 5.7),
        deltaW: round(1.5 - i * 0.7),
        deltaG: round(0.9 - i * 0.4),
      })),
    },
    'presence.engine-intent-matrix': {
      engines: withImage,
      intents: INTENTS.map(({ id, label }) => ({ id, label })),
      engineIntentMatrix: byId(ENGINES, (_, e) =>
        byId(INTENTS, (_, i) => round(12 + ((e * 13 + i * 17) % 58))),
      ),
    },
    'life.kpi': series(62.4, 1.3, 0.8),
    'life.recommended-share': series(36.1, 1.8, 0.7),
    'life.neutral-share': series(29.4, -0.6, 0.4),
    'life.negative-share': series(4.8, 0.4, -0.2),
    'life.positive-negative-ratio': series(4.35, -0.21, 0.1),
    'life.stance-mix': {
      recommended: 0.361,
      advisedNotFavored: 0.187,
      neutral: 0.294,
      cautious: 0.11,
      negative: 0.048,
      engineCount: 5,
      prev: { recommended: 0.343, advisedNotFavored: 0.19, neutral: 0.3, cautious: 0.123, negative: 0.044 },
    },
    'life.stance-history': {
      measurements: LABELS,
      series: {
        recommended: [0.31, 0.32, 0.33, 0.33, 0.343, 0.361],
        advisedNotFavored: [0.2, 0.2, 0.19, 0.19, 0.19, 0.187],
        neutral: [0.32, 0.31, 0.31, 0.3, 0.3, 0.294],
        cautious: [0.12, 0.12, 0.12, 0.13, 0.123, 0.11],
        negative: [0.05, 0.05, 0.05, 0.05, 0.044, 0.048],
      },
    },
    'life.scatter': {
      intents: INTENTS,
      presenceByIntent: byId(INTENTS, (_, i) => ({ weighted: round(52.3 - i * 6.1) })),
      lifeByIntent: byId(INTENTS, (_, i) => ({ life: round(55 + ((i * 11) % 25)) })),
      weightedPresenceCurrent: 34.2,
      lifeCurrent: 62.4,
    },
    'life.by-engine': {
      engines: withImage,
      lifeByEngine: byId(ENGINES, (_, i) => ({
        life: round(68.2 - i * 3.4),
        delta: round(1.1 - i * 0.6),
        stance: stance(round(0.4 - i * 0.02, 2), 0.18, 0.28, 0.09),
      })),
    },
    'life.by-intent': {
      intents: INTENTS,
      lifeByIntent: byId(INTENTS, (_, i) => ({
        life: round(55 + ((i * 11) % 25)),
        delta: round(0.8 - i * 0.5),
        presence: round(52.3 - i * 6.1),
        stance: stance(0.35, round(0.2 - i * 0.01, 2), 0.27, 0.1),
      })),
    },
    'gravity.gravity-plus': series(27.9, 1.4, 0.9),
    'gravity.gravity-minus': series(8.2, -0.7, -0.3),
    'gravity.open-errors': {
      count: 2,
      delta: -1,
      resolvedSinceBaseline: 3,
      history: [5, 5, 4, 4, 3, 2],
      historyLabels: LABELS,
    },
    'gravity.source-distribution': { owned: 18.4, partner: 10.9, external: 70.7 },
    'gravity.by-engine': {
      engines: withImage,
      gravityByEngine: byId(ENGINES, (_, i) => ({
        gPlus: round(0.31 - i * 0.02, 3),
        gMinus: round(0.07 + i * 0.01, 3),
        gravityPlus: round(31.2 - i * 2.1),
        gravityMinus: round(6.9 + i * 0.8),
      })),
    },
    'gravity.error-register': {
      engines: withImage,
      gravityErrors: [
        {
          id: 'E-101',
          title: 'Subscription price',
          correct: 'The Classic plan costs €14.90 per month, shipping included.',
          note: 'Price changed in September.',
          wrong: [
            { engine: 1, text: 'Northwind subscriptions start at €19.90 plus shipping.' },
            { engine: 3, text: 'Northwind has no subscription offer.' },
          ],
        },
        {
          id: 'E-107',
          title: 'Roasting location',
          correct: 'All beans are roasted in Hamburg.',
          note: null,
          wrong: [{ engine: 2, text: 'Northwind outsources roasting to Vietnam.' }],
        },
      ],
    },
    'gravity.trend': {
      historyPlus: series(27.9, 1.4, 0.9).history,
      historyMinus: series(8.2, -0.7, -0.3).history,
      measurements: LABELS.map((label, i) => ({ id: 4821 + i, label })),
    },
    'gravity.source-distribution-history': {
      measurements: LABELS,
      series: {
        owned: [15.2, 16.0, 16.8, 17.1, 17.9, 18.4],
        partner: [9.8, 10.1, 10.4, 10.2, 10.6, 10.9],
        external: [75.0, 73.9, 72.8, 72.7, 71.5, 70.7],
      },
    },
    'scout.landscape-stats': {
      totalDomains: 214,
      totalUrls: 1032,
      multiEngineDomains: 47,
      historyLabels: LABELS,
      domainsHistory: [180, 188, 195, 201, 207, 214],
      urlsHistory: [850, 880, 921, 960, 990, 1032],
      multiEngineHistory: [38, 40, 41, 43, 45, 47],
      domainsDelta: 7,
      urlsDelta: 42,
    },
    'scout.source-landscape': {
      sourcesDetail: Array.from({ length: 22 }, (_, i) => ({
        name: i === 0 ? 'northwindcoffee.com' : `source-${String(i).padStart(2, '0')}.example.org`,
        citations: 140 - i * 6,
        engines: Math.max(1, 5 - (i % 5)),
        control: i === 0 ? 'owned' : i % 4 === 1 ? 'partner' : 'external',
        sourceType: ['brand site', 'review', 'news', 'forum'][i % 4] ?? 'other',
        delta: (i % 3) - 1,
      })),
      totalCount: 214,
      engineCount: 5,
    },
    'scout.references-by-llm': {
      engines: ENGINES,
      dataByEngine: byId(ENGINES, (_, i) => ({ weighted: round(44.1 - i * 6.2) })),
    },
    'scout.references-by-intent': {
      intents: INTENTS.map(({ id, label, stage }) => ({ id, label, stage })),
      presenceByIntent: byId(INTENTS, (_, i) => ({ weighted: round(39.8 - i * 4.4) })),
    },
    'scout.citation-occurrences': {
      engines: ENGINES.map((engine) => engine.label),
      categories: [
        { key: 'brand', label: 'Northwind Coffee', color: '#1F4E79' },
        { key: 'comp_7', label: 'Blue Bottle', color: '#E8A33D' },
        { key: 'comp_9', label: 'Lavazza', color: '#8A94A6' },
      ],
      series: { brand: [48, 41, 30, 27, 19], comp_7: [39, 35, 33, 22, 18], comp_9: [30, 24, 26, 20, 14] },
    },
    'market.data': {
      measurements: LABELS.map((label, i) => ({ id: 4821 + i, label })),
      market: {
        dStar: metric(0.241, 0.006, 0.004, 3),
        tBar: metric(2.6, 0.1, 0.05, 2),
        totalResponses: metric(960, 0, 0, 0),
        responsesWithBrands: metric(758, 12, 6, 0),
        responsesWithoutBrands: metric(202, -12, -6, 0),
        uniqueBrands: metric(37, 2, 1, 0),
      },
      weightedPresence: { fairShare: 0.167, fairShareMetric: metric(0.205, 0.012, 0.006, 3) },
    },
    'market.life-monitored-competitors': {
      shares: [
        { name: 'Northwind Coffee', share: 0.352, isBrand: true, isTargeted: true },
        { name: 'Blue Bottle', share: 0.281, isBrand: false, isTargeted: true },
        { name: 'Lavazza', share: 0.214, isBrand: false, isTargeted: true },
        { name: 'Illy', share: 0.153, isBrand: false, isTargeted: false },
      ],
    },
  };
}

export interface FixtureOptions {
  id?: number;
  brand?: string;
  querySet?: string;
  run?: string;
  runId?: number;
  querySetId?: number;
  /** Replace or drop payloads: `undefined` removes the key, `{data, error}` stores that. */
  payloads?: Record<string, { data: unknown; error: string | null } | undefined>;
  state?: ReportSnapshot['state'];
}

export function fixtureSnapshot(options: FixtureOptions = {}): ReportSnapshot {
  const payloads: ReportSnapshot['payloads'] = {};
  for (const [key, data] of Object.entries(fixturePayloads())) payloads[key] = { data, error: null };
  for (const [key, value] of Object.entries(options.payloads ?? {})) {
    if (value === undefined) delete payloads[key];
    else payloads[key] = value;
  }
  return {
    id: options.id ?? 6,
    account: 'main',
    brand: { id: 1, name: options.brand ?? 'Northwind Coffee' },
    querySet: {
      id: options.querySetId ?? 101,
      name: options.querySet ?? 'Coffee buyers — DACH',
      details: {
        query_set_id: options.querySetId ?? 101,
        query_set_name: options.querySet ?? 'Coffee buyers — DACH',
        display_name: options.run ?? 'W46 2026',
        created_at: '2026-01-05T09:00:00+01:00',
        queries_count: 120,
        engines: ENGINES.map((engine) => ({
          id: engine.id,
          name: engine.label,
          image: image(engine.id),
          ai_model_name: `${engine.label} model`,
        })),
        date: '16/11/2026',
      },
    },
    run: {
      id: options.runId ?? 4826,
      display_name: options.run ?? 'W46 2026',
      created_at: '2026-11-16T05:12:00+01:00',
    },
    state: options.state ?? 'complete',
    completedAt: '2026-11-16T05:20:00Z',
    payloads,
  };
}
