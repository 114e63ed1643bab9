import { afterEach, describe, expect, it } from 'vitest';
import { RateBudget } from '../../src/api/budget.js';
import { ApiClient, type ApiClientOptions, type RequestEvent } from '../../src/api/client.js';
import { catalogEndpoints, metricEndpoint, metricEndpoints } from '../../src/api/endpoints.js';
import { InvalidRequestError } from '../../src/errors/index.js';
import { SANDBOX_IDS } from '../../src/sandbox/dataset.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/server.js';

/**
 * The client against the sandbox over real HTTP: every endpoint of the catalog answers with a payload
 * its schema accepts, forbidden requests never leave the process, and faults are recovered from.
 */

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function setup(sandboxOptions: SandboxOptions = {}, clientOptions: Partial<ApiClientOptions> = {}) {
  const sandbox: Sandbox = await startSandbox(sandboxOptions);
  open.push(sandbox);
  const rate = sandboxOptions.rate ?? { requests: 120, windowMs: 60_000 };
  const events: RequestEvent[] = [];
  const client = new ApiClient({
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.apiKey,
    apiSecret: sandbox.apiSecret,
    budget: new RateBudget({ key: sandbox.apiKey, ...rate, concurrency: 4 }),
    backoff: { baseMs: 10, capMs: 50 },
    timeoutMs: 2_000,
    onRequest: (e) => events.push(e),
    ...clientOptions,
  });
  open.unshift(client); // closed before the sandbox
  return { sandbox, client, events };
}

/** Fetches all 38 endpoints the way the sync discovers them: brands → sets → details, runs, metrics. */
async function fetchEverything(client: ApiClient) {
  const payloads = new Map<string, unknown>();
  const brands = await client.get(catalogEndpoints.brands, {});
  payloads.set(catalogEndpoints.brands.key, brands);
  const brand = brands.find((b) => b.id === SANDBOX_IDS.brands.northwind);
  expect(brand, 'brand 1 in /brands/list').toBeDefined();
  const sets = await client.get(catalogEndpoints.querySets, { brandId: brand!.id });
  payloads.set(catalogEndpoints.querySets.key, sets);
  const querySetId = SANDBOX_IDS.sets.main;
  expect(sets.map((s) => s.id)).toContain(querySetId);
  payloads.set(catalogEndpoints.details.key, await client.get(catalogEndpoints.details, { querySetId }));
  const runs = await client.get(catalogEndpoints.runs, { querySetId });
  payloads.set(catalogEndpoints.runs.key, runs);
  const end = Math.max(...runs.map((r) => r.id));
  await Promise.all(
    metricEndpoints.map(async (endpoint) => {
      payloads.set(endpoint.key, await client.get(endpoint, { querySetId }, { end_run_id: end }));
    }),
  );
  return payloads;
}

describe('ApiClient against the sandbox', () => {
  it('fetches all 38 endpoints, each payload valid for its schema, once each', async () => {
    const { sandbox, client, events } = await setup();
    const payloads = await fetchEverything(client);
    expect(payloads.size).toBe(38);
    for (const endpoint of [...Object.values(catalogEndpoints), ...metricEndpoints]) {
      const result = endpoint.schema.safeParse(payloads.get(endpoint.key));
      expect(result.success, `${endpoint.key} payload`).toBe(true);
    }
    expect(sandbox.stats.total).toBe(38);
    expect(Object.values(sandbox.stats.byEndpoint)).toEqual(Array(38).fill(1));
    expect(events.every((e) => e.outcome === 'ok' && e.attempt === 1)).toBe(true);
  });

  it('refuses forbidden parameters before anything is sent', async () => {
    const { sandbox, client } = await setup();
    const querySetId = SANDBOX_IDS.sets.main;
    const refused = [
      client.get(metricEndpoint('market.life-monitored-competitors'), { querySetId }, { start_run_id: 1 }),
      client.get(catalogEndpoints.runs, { querySetId }, { end_run_id: 1 }),
      client.get(metricEndpoint('scout.source-landscape'), { querySetId }, { sort: 'bogus' }),
      client.get(metricEndpoint('presence.gross'), {}, {}),
    ];
    for (const request of refused) await expect(request).rejects.toBeInstanceOf(InvalidRequestError);
    expect(sandbox.stats.total).toBe(0);
  });

  it('recovers every request when 30% of first attempts fault (HTML 502, reset, stall)', async () => {
    const { sandbox, client, events } = await setup(
      { faults: 0.3, faultStallMs: 10_000 },
      { timeoutMs: 500 },
    );
    const payloads = await fetchEverything(client);
    expect(payloads.size).toBe(38);
    expect(sandbox.stats.faults).toBeGreaterThan(0);
    // Each fault cost exactly one retried attempt, and nothing else failed.
    expect(events.filter((e) => e.outcome === 'transient')).toHaveLength(sandbox.stats.faults);
    expect(events.filter((e) => e.outcome === 'ok')).toHaveLength(38);
    expect(sandbox.stats.total).toBe(38 + sandbox.stats.faults);
  });

  it('stays inside the server rate window: a tight limit slows the client, it never answers -145', async () => {
    const rate = { requests: 10, windowMs: 300 };
    const { sandbox, client, events } = await setup({ rate });
    const started = Date.now();
    const payloads = await fetchEverything(client);
    expect(payloads.size).toBe(38);
    expect(sandbox.stats.byErrorCode['-145']).toBeUndefined();
    expect(events.every((e) => e.outcome === 'ok')).toBe(true);
    // 38 requests at 10 per 300 ms need at least three full windows.
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * rate.windowMs);
  });

  it('stops at once on wrong credentials (-4) and on a foreign query set (-132)', async () => {
    const { sandbox, client } = await setup();
    await expect(
      client.get(catalogEndpoints.details, { querySetId: SANDBOX_IDS.sets.foreign }),
    ).rejects.toMatchObject({ name: 'QuerySetNotFoundError', querySetId: SANDBOX_IDS.sets.foreign });
    const wrong = new ApiClient({
      baseUrl: sandbox.baseUrl,
      apiKey: sandbox.apiKey,
      apiSecret: 'not-the-secret',
      budget: new RateBudget({ key: 'wrong', requests: 120, windowMs: 60_000 }),
    });
    open.unshift(wrong);
    await expect(wrong.get(catalogEndpoints.brands, {})).rejects.toMatchObject({
      name: 'NotAuthorizedError',
    });
    expect(sandbox.stats.byErrorCode).toEqual({ '-132': 1, '-4': 1 });
  });
});
