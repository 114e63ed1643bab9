import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { get } from './http.js';

/**
 * A published fall is a fall of the rate behind the answers, so it shows in the breakdowns that make
 * the overall figure (engines, intents, counts), not in the headline alone; and a quiet world
 * (`quiet: true`) differs from run to run by sampling only.
 */

// biome-ignore lint/suspicious/noExplicitAny: payloads read loosely; each check says what it expects.
type Payload = any;

const RATE = { requests: 100_000, windowMs: 60_000 };
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

async function snapshot(sandbox: Sandbox, setId: number) {
  const read = async (path: string): Promise<Payload> => (await get(sandbox, path)).body;
  return {
    gross: await read(`/presence/sets/${setId}/gross`),
    weighted: await read(`/presence/sets/${setId}/weighted`),
    positions: await read(`/presence/sets/${setId}/position-distribution`),
    cited: await read(`/presence/sets/${setId}/position-distribution-by-engine`),
    engines: await read(`/presence/sets/${setId}/by-engine`),
    intents: await read(`/presence/sets/${setId}/by-intent`),
  };
}

const grossOf = (breakdown: Record<string, { gross: number }>) =>
  Object.values(breakdown).map((e) => e.gross);

describe('a published fall of gross presence', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ rate: RATE });
  });
  afterAll(() => sandbox?.close());

  it('moves the per-engine and per-intent breakdowns and the counts, not just the headline', async () => {
    const before = await snapshot(sandbox, 101);
    sandbox.publishRun(101, { grossChange: -10, answers: 600 });
    const after = await snapshot(sandbox, 101);

    // The headline: the previous run's gross less 10 points, to within one of 600 answers, never less.
    expect(after.gross.delta).toBeLessThanOrEqual(-10);
    expect(after.gross.delta).toBeGreaterThanOrEqual(-10 - 100 / 600);
    expect(after.positions.totalAll).toBe(600);

    // The engines and intents carry the fall: on average about 10 points each, as sampling spreads it.
    const engineFall =
      mean(grossOf(after.engines.presenceByEngine)) - mean(grossOf(before.engines.presenceByEngine));
    expect(engineFall).toBeLessThan(-7);
    expect(engineFall).toBeGreaterThan(-13);
    const intentFall =
      mean(grossOf(after.intents.presenceByIntent)) - mean(grossOf(before.intents.presenceByIntent));
    expect(intentFall).toBeLessThan(-5);
    for (const [id, intent] of Object.entries(after.intents.presenceByIntent as Record<string, Payload>)) {
      expect(intent.deltaG).toBeCloseTo(intent.gross - before.intents.presenceByIntent[id].gross, 6);
    }
    // Weighted presence counts the same answers, so it falls too.
    expect(after.weighted.delta).toBeLessThan(0);

    // Counts: the answers naming the brand are the engines' timesCited, before and after.
    const cited = after.cited.engines as Payload[];
    expect(cited.reduce((s: number, e: Payload) => s + e.timesCited, 0)).toBe(after.positions.totalAnswers);
    expect(after.cited.totals.deltaTimesCited).toBe(
      after.positions.totalAnswers - before.positions.totalAnswers,
    );

    // It is the rate that fell: the next run, published without a change, stays down (within noise).
    sandbox.publishRun(101);
    const next = await snapshot(sandbox, 101);
    expect(Math.abs(next.gross.current - after.gross.current)).toBeLessThan(5);
  });

  it('rejects a fall or an answer count it cannot publish, with the option named', () => {
    expect(() => sandbox.publishRun(101, { answers: 0 })).toThrow(/answers must be a whole number >= 1/);
    expect(() => sandbox.publishRun(101, { grossChange: Number.NaN })).toThrow(/grossChange must be/);
  });
});

describe('a quiet world', () => {
  let sandbox: Sandbox;
  const panel = Array.from({ length: 10 }, (_, k) => 301 + k);
  beforeAll(async () => {
    sandbox = await startSandbox({ rate: RATE, quiet: true, extraSets: panel.length });
  });
  afterAll(() => sandbox?.close());

  it('adds the extra sets to the first brand, each with two runs', async () => {
    const sets = (await get(sandbox, '/sets/brands/1/list')).body as Array<{ id: number }>;
    expect(sets.map((s) => s.id)).toEqual([101, 102, 103, ...panel]);
    for (const id of panel) expect((await get(sandbox, `/sets/${id}/runs`)).body).toHaveLength(2);
    await expect(startSandbox({ extraSets: 101 })).rejects.toThrow(
      /extraSets must be a whole number from 0 to 100/,
    );
  });

  it('changes from run to run by sampling only: gross moves as two draws of the same rate do', async () => {
    const z: number[] = [];
    for (const id of panel) {
      const gross = (await get(sandbox, `/presence/sets/${id}/gross`)).body as Payload;
      const market = (await get(sandbox, `/market/sets/${id}/data`)).body as Payload;
      const [n1, n2] = market.market.totalResponses.history as number[];
      const [g1, g2] = (gross.history as number[]).map((g) => g / 100);
      const pooled = (g1! * n1! + g2! * n2!) / (n1! + n2!);
      z.push((g2! - g1!) / Math.sqrt(pooled * (1 - pooled) * (1 / n1! + 1 / n2!)));
    }
    // Ten independent z scores: none far out, and their squares sum below χ²(10)'s 99.9th percentile.
    expect(z.filter((v) => Math.abs(v) > 3.3)).toEqual([]);
    expect(z.reduce((s, v) => s + v * v, 0)).toBeLessThan(29.6);
    // Ten runs of one set scatter around one rate as binomial draws do (χ²(9), 99.9th percentile).
    const history = ((await get(sandbox, '/presence/sets/101/gross')).body as Payload).history as number[];
    const answers = ((await get(sandbox, '/market/sets/101/data')).body as Payload).market.totalResponses
      .history as number[];
    const rate = mean(history) / 100;
    const dispersion = history.reduce(
      (sum, g, k) => sum + (g / 100 - rate) ** 2 / ((rate * (1 - rate)) / answers[k]!),
      0,
    );
    expect(history).toHaveLength(10);
    expect(dispersion).toBeLessThan(27.9);
    // Nothing else drifts either: the register and the cited domains stay as they are.
    const errors = (await get(sandbox, '/gravity/sets/101/open-errors')).body as Payload;
    expect(new Set(errors.history).size).toBe(1);
    const stats = (await get(sandbox, '/scout/sets/101/landscape-stats')).body as Payload;
    expect(new Set(stats.domainsHistory).size).toBe(1);
  });

  it('shows a published −10-point fall on 600 answers in gross presence', async () => {
    sandbox.publishRun(panel[0]!, { grossChange: -10, answers: 600 });
    const gross = (await get(sandbox, `/presence/sets/${panel[0]}/gross`)).body as Payload;
    expect(gross.history).toHaveLength(3);
    expect(gross.delta).toBeLessThanOrEqual(-10);
    expect(gross.delta).toBeGreaterThanOrEqual(-10 - 100 / 600);
  });
});
