import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEndpoints, catalogEndpoints, metricEndpoints } from '../../src/api/endpoints.js';
import { SANDBOX_IDS } from '../../src/sandbox/dataset.js';
import { handlerFor } from '../../src/sandbox/handlers.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { get, pathOf } from './http.js';

let sandbox: Sandbox;
beforeAll(async () => {
  // Generous rate: this file checks payloads, not the limit.
  sandbox = await startSandbox({ rate: { requests: 10_000, windowMs: 60_000 } });
});
afterAll(() => sandbox.close());

describe('sandbox endpoint coverage', () => {
  it('has a handler for every endpoint of the catalog', () => {
    const missing = allEndpoints.filter((e) => !handlerFor(e.key)).map((e) => e.key);
    expect(missing).toEqual([]);
    expect(allEndpoints).toHaveLength(38);
  });

  it('answers every catalog endpoint with a payload that passes its schema', async () => {
    const targets = [
      [catalogEndpoints.brands, {}],
      [catalogEndpoints.querySets, { brandId: 1 }],
      [catalogEndpoints.querySets, { brandId: 2 }],
      [catalogEndpoints.details, { querySetId: 101 }],
      [catalogEndpoints.details, { querySetId: 103 }],
      [catalogEndpoints.runs, { querySetId: 201 }],
      [catalogEndpoints.runs, { querySetId: 103 }],
    ] as const;
    for (const [endpoint, ids] of targets) {
      const { status, body } = await get(sandbox, pathOf(endpoint.path, ids));
      expect(status, `${endpoint.key} ${JSON.stringify(ids)}`).toBe(200);
      const parsed = endpoint.schema.safeParse(body);
      expect(parsed.success, `${endpoint.key}: ${parsed.error?.message}`).toBe(true);
    }
  });

  it('lists the company brands and the sets of each brand only', async () => {
    expect((await get(sandbox, '/brands/list')).body).toEqual([
      { id: 1, name: 'Northwind Coffee' },
      { id: 2, name: 'Lumen Tea' },
    ]);
    const sets = (await get(sandbox, '/sets/brands/1/list')).body as Array<{ id: number }>;
    expect(sets.map((s) => s.id)).toEqual([101, 102, 103]);
    const runs = (await get(sandbox, '/sets/101/runs')).body as Array<{ id: number; display_name: string }>;
    expect(runs.map((r) => r.id).sort()).toEqual([...SANDBOX_IDS.runs[101]!].sort());
    expect(runs[0]?.display_name).toBe('Week 37 · 2026');
    expect((await get(sandbox, '/sets/103/runs')).body).toEqual([]);
  });

  const cases: Array<[number, string, string]> = [
    [101, 'latest run', ''],
    [101, 'first run', `end_run_id=${SANDBOX_IDS.runs[101]![0]}`],
    [
      101,
      'middle window',
      `start_run_id=${SANDBOX_IDS.runs[101]![2]}&end_run_id=${SANDBOX_IDS.runs[101]![6]}`,
    ],
    [201, 'latest run', ''],
    [201, 'second run', `end_run_id=${SANDBOX_IDS.runs[201]![1]}`],
    [102, 'latest run', ''],
  ];

  it.each(cases)(
    'answers all 34 metric endpoints for set %i (%s) within their schemas',
    async (setId, _, query) => {
      for (const endpoint of metricEndpoints) {
        // life-monitored-competitors takes only end_run_id.
        const q =
          endpoint.params.start_run_id === undefined
            ? query
                .split('&')
                .filter((p) => !p.startsWith('start_run_id'))
                .join('&')
            : query;
        const { status, body, contentType } = await get(
          sandbox,
          pathOf(endpoint.path, { querySetId: setId }, q),
        );
        expect(status, `${endpoint.key}: ${JSON.stringify(body)}`).toBe(200);
        expect(contentType).toMatch(/^application\/json/);
        const parsed = endpoint.schema.safeParse(body);
        expect(parsed.success, `${endpoint.key}: ${parsed.error?.message}`).toBe(true);
      }
    },
  );
});
