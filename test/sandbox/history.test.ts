import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_IDS } from '../../src/sandbox/dataset.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { get } from './http.js';

const runs = SANDBOX_IDS.runs[101]!;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ rate: { requests: 10_000, windowMs: 60_000 } });
});
afterAll(() => sandbox.close());

interface Card {
  current: number;
  delta: number;
  history: number[];
  historyLabels: string[];
}

const card = async (target: string) => (await get(sandbox, target)).body as Card;

describe('sandbox run windows', () => {
  it('gives the full history up to the latest run by default', async () => {
    const gross = await card('/presence/sets/101/gross');
    expect(gross.history).toHaveLength(10);
    expect(gross.historyLabels[0]).toBe('Week 28 · 2026');
    expect(gross.historyLabels.at(-1)).toBe('Week 37 · 2026');
    expect(gross.current).toBe(gross.history.at(-1));
    expect(gross.delta).toBeCloseTo(gross.history[9]! - gross.history[8]!, 5);
  });

  it('cuts history series to start_run_id..end_run_id and answers as of end_run_id', async () => {
    const full = await card('/presence/sets/101/gross');
    const window = await card(`/presence/sets/101/gross?start_run_id=${runs[3]}&end_run_id=${runs[6]}`);
    expect(window.history).toEqual(full.history.slice(3, 7));
    expect(window.historyLabels).toEqual(full.historyLabels.slice(3, 7));
    expect(window.current).toBe(full.history[6]);

    const asOf = await card(`/life/sets/101/kpi?end_run_id=${runs[4]}`);
    expect(asOf.history).toHaveLength(5);
    const single = await card(`/life/sets/101/kpi?start_run_id=${runs[4]}&end_run_id=${runs[4]}`);
    expect(single.history).toEqual([asOf.current]);
  });

  it('windows every kind of history series: stance, gravity trend, market measurements, landscape', async () => {
    const q = `start_run_id=${runs[7]}`;
    const stance = (await get(sandbox, `/life/sets/101/stance-history?${q}`)).body as {
      measurements: string[];
      series: Record<string, number[]>;
    };
    expect(stance.measurements).toEqual(['Week 35 · 2026', 'Week 36 · 2026', 'Week 37 · 2026']);
    for (const values of Object.values(stance.series)) expect(values).toHaveLength(3);

    const trend = (await get(sandbox, `/gravity/sets/101/trend?${q}`)).body as { measurements: unknown[] };
    expect(trend.measurements).toEqual([
      { id: runs[7], label: 'Week 35 · 2026' },
      { id: runs[8], label: 'Week 36 · 2026' },
      { id: runs[9], label: 'Week 37 · 2026' },
    ]);
    const market = (await get(sandbox, `/market/sets/101/data?${q}`)).body as {
      market: { totalResponses: { history: number[] } };
    };
    expect(market.market.totalResponses.history).toHaveLength(3);
    const stats = (await get(sandbox, `/scout/sets/101/landscape-stats?${q}`)).body as {
      domainsHistory: number[];
    };
    expect(stats.domainsHistory).toHaveLength(3);
  });

  it('shows values that change from run to run (history looks like a trend, not a constant)', async () => {
    const gross = await card('/presence/sets/101/gross');
    expect(new Set(gross.history).size).toBeGreaterThan(5);
    const first = (await get(sandbox, `/home/sets/101/competitive-context?end_run_id=${runs[0]}`)).body;
    const last = (await get(sandbox, '/home/sets/101/competitive-context')).body;
    expect(first).not.toEqual(last);
  });

  it('keeps the open-error register consistent with the open-errors card', async () => {
    for (const run of [runs[0], runs[5], runs[9]]) {
      const register = (await get(sandbox, `/gravity/sets/101/error-register?end_run_id=${run}`)).body as {
        gravityErrors: unknown[];
      };
      const open = (await get(sandbox, `/gravity/sets/101/open-errors?end_run_id=${run}`)).body as {
        count: number;
      };
      expect(register.gravityErrors).toHaveLength(open.count);
    }
  });
});

describe('sandbox source landscape', () => {
  type Landscape = {
    sourcesDetail: Array<{ name: string; citations: number; delta: number }>;
    totalCount: number;
  };
  const landscape = async (q = '') =>
    (await get(sandbox, `/scout/sets/101/source-landscape${q}`)).body as Landscape;

  it('returns 10 sources by default, most cited first, and all of them with an explicit limit', async () => {
    const top = await landscape();
    expect(top.sourcesDetail).toHaveLength(10);
    expect(top.totalCount).toBeGreaterThanOrEqual(25);
    const citations = top.sourcesDetail.map((s) => s.citations);
    expect(citations).toEqual([...citations].sort((a, b) => b - a));
    const all = await landscape(`?limit=${top.totalCount}`);
    expect(all.sourcesDetail).toHaveLength(top.totalCount);
    expect(new Set(all.sourcesDetail.map((s) => s.name)).size).toBe(top.totalCount);
  });

  it('sorts by name, delta and direction', async () => {
    const byName = await landscape('?sort=name&dir=asc&limit=100');
    const names = byName.sourcesDetail.map((s) => s.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    const byDelta = await landscape('?sort=delta&dir=asc&limit=5');
    const deltas = byDelta.sourcesDetail.map((s) => s.delta);
    expect(deltas).toEqual([...deltas].sort((a, b) => a - b));
    const nameDesc = await landscape('?sort=name&limit=3');
    expect(nameDesc.sourcesDetail.map((s) => s.name)).toEqual([...names].reverse().slice(0, 3));
  });
});

describe('sandbox publishRun', () => {
  it('appends the next week as a new latest run that every endpoint then answers for', async () => {
    const local = await startSandbox();
    try {
      const before = (await get(local, '/sets/101/runs')).body as Array<{ id: number }>;
      const run = local.publishRun(101);
      expect(run.display_name).toBe('Week 38 · 2026');
      expect(run.id).toBeGreaterThan(Math.max(...Object.values(SANDBOX_IDS.runs).flat()));
      const after = (await get(local, '/sets/101/runs')).body as Array<{ id: number }>;
      expect(after).toHaveLength(before.length + 1);
      expect(after).toContainEqual(run);
      expect(((await get(local, '/sets/101/details')).body as { display_name: string }).display_name).toBe(
        'Week 38 · 2026',
      );
      const gross = (await get(local, '/presence/sets/101/gross')).body as Card;
      expect(gross.history).toHaveLength(11);
      // A set that had no run becomes reportable after its first publication.
      const first = local.publishRun(103);
      const kpi = (await get(local, `/life/sets/103/kpi?end_run_id=${first.id}`)).body as Card;
      expect(kpi.historyLabels).toEqual([first.display_name]);
      // Other sandboxes are not affected.
      expect(((await get(sandbox, '/sets/101/runs')).body as unknown[]).length).toBe(10);
    } finally {
      await local.close();
    }
  });

  it('refuses to publish for a set outside the company', async () => {
    const local = await startSandbox();
    try {
      expect(() => local.publishRun(999)).toThrow(/not in the sandbox company/);
    } finally {
      await local.close();
    }
  });
});

describe("the summary tells the card's story", () => {
  it('after a run published with a movement, the summary gives the gross card’s numbers and says down', async () => {
    const own = await startSandbox({ rate: { requests: 10_000, windowMs: 60_000 } });
    try {
      own.publishRun(101, { movement: true });
      const gross = (await get(own, '/presence/sets/101/gross')).body as Card;
      const summary = ((await get(own, '/home/sets/101/summary')).body as { content: string }).content;
      expect(gross.delta).toBeLessThan(0);
      const previous = gross.history.at(-2)!;
      expect(summary).toContain(`appeared in ${gross.current}% of AI answers`);
      expect(summary).toContain(`(down from ${previous}% the run before)`);
    } finally {
      await own.close();
    }
  });
});
