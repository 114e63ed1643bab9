import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricEndpoints } from '../../src/api/endpoints.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { get, pathOf } from './http.js';

/**
 * The demo adds up: every aggregate lies within the range of its parts (overall within its engines and
 * its intents, an engine within its engine × intent cells), counts sum (timesCited to totalAnswers,
 * answers with and without brands to all answers, citations by control to the source distribution),
 * shares sum to a whole, the same figure is the same wherever it is sent, and history series are what
 * the earlier runs' cards said. Checked for every set and every run of the demo company over HTTP.
 *
 * Tolerance: a figure rounded on its own (a percent to 0.1, a score) may not leave the range at all;
 * parts of a whole apportioned to sum exactly (positions, stance mixes, to 0.001) may by one unit.
 */

// biome-ignore lint/suspicious/noExplicitAny: payloads read loosely; each check says what it expects.
type Payloads = Record<string, any>;

const APPORTIONED = 0.001;

function within(value: number, parts: number[], tolerance: number, where: string): void {
  expect(parts.length, where).toBeGreaterThan(0);
  expect(value, `${where}: ${value} vs [${parts.join(', ')}]`).toBeGreaterThanOrEqual(
    Math.min(...parts) - tolerance - 1e-9,
  );
  expect(value, `${where}: ${value} vs [${parts.join(', ')}]`).toBeLessThanOrEqual(
    Math.max(...parts) + tolerance + 1e-9,
  );
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const POSITIONS = ['p1', 'p2', 'p3', 'p4plus'] as const;
const STANCES = [
  ['recommended', 'rec'],
  ['advisedNotFavored', 'adv'],
  ['neutral', 'neu'],
  ['cautious', 'cau'],
  ['negative', 'neg'],
] as const;

async function payloadsAt(sandbox: Sandbox, setId: number, runId: number): Promise<Payloads> {
  const out: Payloads = {};
  await Promise.all(
    metricEndpoints.map(async (endpoint) => {
      const query = `end_run_id=${runId}${endpoint.name === 'source-landscape' ? '&limit=1000' : ''}`;
      const { status, body } = await get(sandbox, pathOf(endpoint.path, { querySetId: setId }, query));
      expect(status, `${endpoint.key} of set ${setId} run ${runId}`).toBe(200);
      out[endpoint.key] = body;
    }),
  );
  return out;
}

/** Presence, positions and counts: overall within engines and intents, engines within their cells. */
function checkPresence(p: Payloads, where: string): void {
  const byEngine = Object.values(p['presence.by-engine'].presenceByEngine) as Payloads[];
  const byIntent = Object.values(p['presence.by-intent'].presenceByIntent) as Payloads[];
  for (const key of ['gross', 'weighted'] as const) {
    const overall = p[`presence.${key}`].current;
    within(
      overall,
      byEngine.map((e) => e[key]),
      0,
      `${where} ${key} presence within its engines`,
    );
    within(
      overall,
      byIntent.map((i) => i[key]),
      0,
      `${where} ${key} presence within its intents`,
    );
  }
  const matrix = p['presence.engine-intent-matrix'].engineIntentMatrix as Record<
    string,
    Record<string, number>
  >;
  for (const [engineId, cells] of Object.entries(matrix)) {
    const gross = p['presence.by-engine'].presenceByEngine[engineId].gross;
    within(gross, Object.values(cells), 0, `${where} engine ${engineId} gross within its intents`);
  }
  for (const [intentId, { gross }] of Object.entries(p['presence.by-intent'].presenceByIntent as Payloads)) {
    const column = Object.values(matrix).map((cells) => cells[intentId]!);
    within(gross, column, 0, `${where} intent ${intentId} gross within its engines`);
  }

  const distribution = p['presence.position-distribution'];
  const byEngineCited = p['presence.position-distribution-by-engine'];
  const engines = byEngineCited.engines as Payloads[];
  expect(sum(engines.map((e) => e.timesCited)), `${where} timesCited sums`).toBe(distribution.totalAnswers);
  expect(byEngineCited.totals.timesCited, where).toBe(distribution.totalAnswers);
  expect(byEngineCited.totals.deltaTimesCited, where).toBe(sum(engines.map((e) => e.deltaTimesCited)));
  // An engine's timesCited is its gross presence of its answers (every query is asked of every
  // engine, so each has about totalAll / engines of them, short of a few failed ones).
  const perEngine = distribution.totalAll / engines.length;
  for (const e of engines) {
    const gross = p['presence.by-engine'].presenceByEngine[String(e.id)].gross;
    expect(
      Math.abs(e.timesCited - (gross / 100) * perEngine),
      `${where} ${e.label} timesCited vs gross`,
    ).toBeLessThanOrEqual(0.02 * perEngine);
  }
  // Gross presence is the share of all answers that name the brand.
  expect(p['presence.gross'].current, `${where} gross = totalAnswers / totalAll`).toBe(
    Math.round((1000 * distribution.totalAnswers) / distribution.totalAll) / 10,
  );
  expect(sum(POSITIONS.map((k) => distribution[k])), where).toBeCloseTo(1, 9);
  for (const k of POSITIONS) {
    expect(byEngineCited.totals[k], `${where} totals.${k}`).toBe(distribution[k]);
    within(
      distribution[k],
      engines.map((e) => e[k]),
      APPORTIONED,
      `${where} ${k} within its engines`,
    );
  }
  const occurrences = p['scout.citation-occurrences'];
  expect(occurrences.series.brand, `${where} brand occurrences are timesCited`).toEqual(
    engines.map((e) => e.timesCited),
  );
}

/** Life and stance: the overall mix and score within engines' and intents'; the share cards are the mix. */
function checkLife(p: Payloads, where: string): void {
  const mix = p['life.stance-mix'];
  const byEngine = Object.values(p['life.by-engine'].lifeByEngine) as Payloads[];
  const byIntent = Object.values(p['life.by-intent'].lifeByIntent) as Payloads[];
  expect(sum(STANCES.map(([k]) => mix[k])), where).toBeCloseTo(1, 9);
  for (const [long, short] of STANCES) {
    within(
      mix[long],
      byEngine.map((e) => e.stance[short]),
      APPORTIONED,
      `${where} ${long} within engines`,
    );
    within(
      mix[long],
      byIntent.map((i) => i.stance[short]),
      APPORTIONED,
      `${where} ${long} within intents`,
    );
  }
  const kpi = p['life.kpi'].current;
  within(
    kpi,
    byEngine.map((e) => e.life),
    0,
    `${where} life within its engines`,
  );
  within(
    kpi,
    byIntent.map((i) => i.life),
    0,
    `${where} life within its intents`,
  );
  expect(p['life.recommended-share'].current, where).toBeCloseTo(mix.recommended * 100, 9);
  expect(p['life.neutral-share'].current, where).toBeCloseTo(mix.neutral * 100, 9);
  expect(p['life.negative-share'].current, where).toBeCloseTo(mix.negative * 100, 9);
  const scatter = p['life.scatter'];
  expect(scatter.lifeCurrent, where).toBe(kpi);
  expect(scatter.weightedPresenceCurrent, where).toBe(p['presence.weighted'].current);
  for (const [intentId, { weighted }] of Object.entries(
    p['presence.by-intent'].presenceByIntent as Payloads,
  )) {
    expect(scatter.presenceByIntent[intentId].weighted, where).toBe(weighted);
    expect(p['life.by-intent'].lifeByIntent[intentId].presence, where).toBe(weighted);
    expect(scatter.lifeByIntent[intentId].life, where).toBe(p['life.by-intent'].lifeByIntent[intentId].life);
  }
}

/** Gravity, sources, market and shares: within their engines, counts that sum, one value everywhere. */
function checkGravityScoutMarket(p: Payloads, where: string): void {
  const gravity = Object.values(p['gravity.by-engine'].gravityByEngine) as Payloads[];
  within(
    p['gravity.gravity-plus'].current,
    gravity.map((e) => e.gravityPlus),
    0,
    `${where} G+ within engines`,
  );
  within(
    p['gravity.gravity-minus'].current,
    gravity.map((e) => e.gravityMinus),
    0,
    `${where} G− within engines`,
  );
  for (const e of gravity) expect(e.gPlus, where).toBeCloseTo(e.gravityPlus / 100, 9);

  const landscape = p['scout.source-landscape'];
  const sources = landscape.sourcesDetail as Payloads[];
  expect(sources, where).toHaveLength(landscape.totalCount);
  expect(p['scout.landscape-stats'].totalDomains, where).toBe(landscape.totalCount);
  expect(p['scout.landscape-stats'].multiEngineDomains, where).toBe(
    sources.filter((s) => s.engines >= 2).length,
  );
  const citations = sum(sources.map((s) => s.citations));
  const distribution = p['gravity.source-distribution'];
  expect(sum(Object.values(distribution) as number[]), where).toBeCloseTo(100, 9);
  for (const control of ['owned', 'partner', 'external']) {
    const share =
      (100 * sum(sources.filter((s) => s.control === control).map((s) => s.citations))) / citations;
    expect(
      Math.abs(distribution[control] - share),
      `${where} ${control} share of citations`,
    ).toBeLessThanOrEqual(0.1);
  }

  const market = p['market.data'].market;
  expect(market.totalResponses.current, where).toBe(p['presence.position-distribution'].totalAll);
  expect(market.responsesWithBrands.current + market.responsesWithoutBrands.current, where).toBe(
    market.totalResponses.current,
  );
  expect(market.responsesWithBrands.current, where).toBeGreaterThanOrEqual(
    p['presence.position-distribution'].totalAnswers,
  );
  const context = p['overview.competitive-context'];
  expect([context.dStar, p['presence.weighted'].dStar], where).toEqual([
    market.dStar.current,
    market.dStar.current,
  ]);
  const fairShare = Math.round(1000 / market.uniqueBrands.current) / 1000;
  expect(
    [context.fairShare, p['presence.weighted'].fairShare, p['market.data'].weightedPresence.fairShare],
    where,
  ).toEqual([fairShare, fairShare, fairShare]);
  expect(sum(context.shares.map((s: Payloads) => s.share)), where).toBeCloseTo(1, 9);
  expect(context.shares.length, `${where} brands in the shares`).toBeGreaterThanOrEqual(
    market.uniqueBrands.current > 0 ? 2 : 0,
  );
  expect(sum(p['market.life-monitored-competitors'].shares.map((s: Payloads) => s.share)), where).toBeCloseTo(
    1,
    9,
  );
  expect(p['overview.summary'].content, where).toContain(
    `appeared in ${p['presence.gross'].current}% of AI answers`,
  );
}

describe('the demo adds up', () => {
  let sandbox: Sandbox;
  /** Set id → the payloads of each of its runs, oldest first. */
  const runs = new Map<number, Payloads[]>();

  beforeAll(async () => {
    sandbox = await startSandbox({ rate: { requests: 100_000, windowMs: 60_000 } });
    // The draft set has no run; give it one so every set of the company is checked. And, as the demo
    // does, a movement run of the main set: its fall must add up too.
    sandbox.publishRun(103);
    sandbox.publishRun(101, { movement: true });
    const sets = [
      ...((await get(sandbox, '/sets/brands/1/list')).body as Array<{ id: number }>),
      ...((await get(sandbox, '/sets/brands/2/list')).body as Array<{ id: number }>),
    ];
    for (const { id } of sets) {
      const list = ((await get(sandbox, `/sets/${id}/runs`)).body as Array<{ id: number }>).reverse();
      runs.set(id, await Promise.all(list.map((run) => payloadsAt(sandbox, id, run.id))));
    }
  }, 120_000);
  afterAll(() => sandbox?.close());

  it('covers every set of the demo company, each with its runs', () => {
    expect([...runs.keys()].sort()).toEqual([101, 102, 103, 201]);
    expect(runs.get(101)).toHaveLength(11);
    const [before, movement] = runs.get(101)!.slice(-2) as [Payloads, Payloads];
    expect(movement['presence.gross'].current).toBeLessThanOrEqual(before['presence.gross'].current - 9);
  });

  it('keeps every aggregate within the range of its parts and every count summing, in every run', () => {
    for (const [setId, payloads] of runs) {
      payloads.forEach((p, k) => {
        const where = `set ${setId} run ${k + 1}`;
        checkPresence(p, where);
        checkLife(p, where);
        checkGravityScoutMarket(p, where);
      });
    }
  });

  it("serves as history what the earlier runs' own cards said", () => {
    for (const [setId, payloads] of runs) {
      const latest = payloads.at(-1)!;
      const earlier = (pick: (p: Payloads) => unknown) => payloads.map(pick);
      const where = `set ${setId}`;
      for (const key of ['presence.gross', 'presence.weighted', 'life.kpi', 'gravity.gravity-plus']) {
        expect(latest[key].history, `${where} ${key}`).toEqual(earlier((p) => p[key].current));
      }
      expect(latest['gravity.trend'].historyMinus, where).toEqual(
        earlier((p) => p['gravity.gravity-minus'].current),
      );
      expect(latest['life.stance-history'].series.recommended, where).toEqual(
        earlier((p) => p['life.stance-mix'].recommended),
      );
      expect(latest['market.data'].market.totalResponses.history, where).toEqual(
        earlier((p) => p['presence.position-distribution'].totalAll),
      );
      expect(latest['gravity.source-distribution-history'].series.owned, where).toEqual(
        earlier((p) => p['gravity.source-distribution'].owned),
      );
      expect(latest['scout.landscape-stats'].domainsHistory, where).toEqual(
        earlier((p) => p['scout.source-landscape'].totalCount),
      );
      if (payloads.length > 1) {
        expect(latest['presence.position-distribution'].prev, where).toEqual(
          Object.fromEntries(
            POSITIONS.map((k) => [k, payloads.at(-2)!['presence.position-distribution'][k]]),
          ),
        );
      }
    }
  });
});
