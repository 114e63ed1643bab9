import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricEndpoints } from '../../src/api/endpoints.js';
import { payloadRows } from '../../src/api/metric-rows.js';
import { ALERTABLE } from '../../src/config/alertable-metrics.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';

/**
 * The names alert rules may use (src/config/alertable-metrics.ts) are exactly the non-history fields the
 * metrics layer derives from real payloads: fetched from the sandbox over HTTP and turned into rows
 * by the same code the store uses. A field added to the mapping without a line in ALERTABLE, or a
 * name there that no payload produces, fails here.
 */

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ rate: { requests: 100_000, windowMs: 60_000 } });
});
afterAll(() => sandbox?.close());

describe('alertable metric names', () => {
  it('match the fields and dimensions the sandbox payloads give', async () => {
    const derived: Record<string, { fields: Set<string>; per: Record<string, Set<string>> }> = {};
    for (const endpoint of metricEndpoints) {
      const response = await fetch(`${sandbox.baseUrl}${endpoint.path.replace('{querySetId}', '101')}`, {
        headers: { 'X-Api-Key': sandbox.apiKey, 'X-Api-Secret': sandbox.apiSecret },
      });
      for (const row of payloadRows(endpoint.key, await response.json())) {
        if (row.dimension === 'measurement') continue; // history series: a rule compares runs instead
        const entry = derived[row.endpoint] ?? { fields: new Set<string>(), per: {} };
        derived[row.endpoint] = entry;
        if (row.dimension === '') entry.fields.add(row.field);
        else entry.per[row.dimension] = new Set([...(entry.per[row.dimension] ?? []), row.field]);
      }
    }
    const normalise = (fields: Iterable<string>) => [...fields].sort();
    const expected = Object.fromEntries(
      Object.entries(derived).map(([key, value]) => [
        key,
        {
          fields: normalise(value.fields),
          per: Object.fromEntries(Object.entries(value.per).map(([d, f]) => [d, normalise(f)])),
        },
      ]),
    );
    const actual = Object.fromEntries(
      Object.entries(ALERTABLE).map(([key, value]) => [
        key,
        {
          fields: normalise(value.fields),
          per: Object.fromEntries(Object.entries(value.per ?? {}).map(([d, f]) => [d, normalise(f)])),
        },
      ]),
    );
    expect(actual).toEqual(expected);
  });
});
