import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_IDS } from '../../src/sandbox/dataset.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { get } from './http.js';

/** A sandbox serving several companies at once: each key sees its own company, limited on its own. */

const RATE = { requests: 5, windowMs: 60_000 };
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ companies: 3, rate: { requests: 10_000, windowMs: 60_000 } });
});
afterAll(() => sandbox.close());

const as = (company: number) => {
  const c = sandbox.credentials(company);
  return { baseUrl: sandbox.baseUrl, apiKey: c.apiKey, apiSecret: c.apiSecret };
};
type Brand = { id: number; name: string };
type SetItem = { id: number; name: string };

describe('sandbox --companies', () => {
  it('gives company 1 the demo credential and company c the key and secret suffixed with -c', () => {
    expect(sandbox.credentials(1)).toEqual({ apiKey: 'sandbox-key', apiSecret: 'sandbox-secret' });
    expect(sandbox.credentials(3)).toEqual({ apiKey: 'sandbox-key-3', apiSecret: 'sandbox-secret-3' });
    expect(() => sandbox.credentials(4)).toThrow(/no company 4/);
  });

  it("shows each key its own company's brands, sets and numbers", async () => {
    const one = (await get(as(1), '/brands/list')).body as Brand[];
    const two = (await get(as(2), '/brands/list')).body as Brand[];
    expect(one).toEqual([
      { id: 1, name: 'Northwind Coffee' },
      { id: 2, name: 'Lumen Tea' },
    ]);
    expect(two).toHaveLength(2);
    expect(two.map((b) => b.id).filter((id) => one.some((o) => o.id === id))).toEqual([]);
    expect(two[0]!.name).toBe('Northwind Coffee #2');

    const sets1 = (await get(as(1), `/sets/brands/${one[0]!.id}/list`)).body as SetItem[];
    const sets2 = (await get(as(2), `/sets/brands/${two[0]!.id}/list`)).body as SetItem[];
    expect(sets1.map((s) => s.id)).toContain(SANDBOX_IDS.sets.main);
    expect(sets2.length).toBe(sets1.length);
    expect(sets2.map((s) => s.id).filter((id) => sets1.some((s) => s.id === id))).toEqual([]);

    // Company 2's main set answers with its own numbers, not a copy of company 1's.
    const gross1 = (await get(as(1), `/presence/sets/${sets1[0]!.id}/gross`)).body as { history: number[] };
    const gross2 = (await get(as(2), `/presence/sets/${sets2[0]!.id}/gross`)).body as { history: number[] };
    expect(gross2.history).toHaveLength(gross1.history.length);
    expect(gross2.history).not.toEqual(gross1.history);
  });

  it("refuses company 3's key for company 2's set with -132, and company 2's brand with -3", async () => {
    const brand2 = ((await get(as(2), '/brands/list')).body as Brand[])[0]!;
    const set2 = ((await get(as(2), `/sets/brands/${brand2.id}/list`)).body as SetItem[])[0]!;
    expect((await get(as(2), `/sets/${set2.id}/details`)).status).toBe(200);
    for (const target of [`/sets/${set2.id}/details`, `/presence/sets/${set2.id}/gross`]) {
      const { status, body } = await get(as(3), target);
      expect(status, target).toBe(500);
      expect(body, target).toEqual({ error_code: -132, error_message: 'Query set not found' });
    }
    expect((await get(as(3), `/sets/brands/${brand2.id}/list`)).body).toMatchObject({ error_code: -3 });
    // A key with another company's secret is nobody.
    const mixed = await get(sandbox, '/brands/list', {
      'X-Api-Key': sandbox.credentials(3).apiKey,
      'X-Api-Secret': sandbox.credentials(2).apiSecret,
    });
    expect(mixed.body).toEqual({ error_code: -4, error_message: 'Not authorized' });
  });

  it("counts the rate window per key: one key's burst does not limit another's", async () => {
    // A fresh sandbox so the requests above do not count; the window (60 s) outlasts the test.
    const fresh = await startSandbox({ companies: 2, rate: RATE });
    try {
      const c1 = { baseUrl: fresh.baseUrl, ...fresh.credentials(1) };
      const c2 = { baseUrl: fresh.baseUrl, ...fresh.credentials(2) };
      const codes = async (who: typeof c1, n: number) => {
        const out: Array<number | 'ok'> = [];
        for (let i = 0; i < n; i++) {
          const { status, body } = await get(who, '/brands/list');
          out.push(status === 200 ? 'ok' : (body as { error_code: number }).error_code);
        }
        return out;
      };
      expect(await codes(c1, RATE.requests + 2)).toEqual([...Array(RATE.requests).fill('ok'), -145, -145]);
      expect(await codes(c2, RATE.requests)).toEqual(Array(RATE.requests).fill('ok'));
      expect(await codes(c2, 1)).toEqual([-145]);
      expect(fresh.stats.byErrorCode['-145']).toBe(3);
    } finally {
      await fresh.close();
    }
  });

  it('publishes a run in the company that owns the set', async () => {
    const brand2 = ((await get(as(2), '/brands/list')).body as Brand[])[0]!;
    const set2 = ((await get(as(2), `/sets/brands/${brand2.id}/list`)).body as SetItem[])[0]!;
    const before = (await get(as(2), `/sets/${set2.id}/runs`)).body as Array<{ id: number }>;
    const run = sandbox.publishRun(set2.id);
    const after = (await get(as(2), `/sets/${set2.id}/runs`)).body as Array<{ id: number }>;
    expect(after).toHaveLength(before.length + 1);
    expect(after[0]!.id).toBe(run.id);
    const runs1 = SANDBOX_IDS.runs[101];
    expect(runs1).not.toContain(run.id);
  });
});
