import { metricEndpoints } from '../../src/api/endpoints.js';
import type { ReportSnapshot } from '../../src/report/model/snapshot.js';
import type { Sandbox } from '../../src/sandbox/server.js';

/**
 * A snapshot as the sync would store it, fetched from the sandbox with plain `fetch` (the report side
 * must not depend on the API client): the set's details, its newest run and all 34 metric payloads.
 */
export async function sandboxSnapshot(
  sandbox: Sandbox,
  querySetId: number,
  brand: { id: number; name: string },
): Promise<ReportSnapshot> {
  const get = async (path: string): Promise<unknown> => {
    const response = await fetch(`${sandbox.baseUrl}${path}`, {
      headers: { 'X-Api-Key': sandbox.apiKey, 'X-Api-Secret': sandbox.apiSecret },
    });
    const body = (await response.json()) as unknown;
    if (body && typeof body === 'object' && 'error_code' in body)
      throw new Error(`${path}: ${JSON.stringify(body)}`);
    return body;
  };
  const details = (await get(`/sets/${querySetId}/details`)) as { query_set_name: string };
  const runs = (await get(`/sets/${querySetId}/runs`)) as {
    id: number;
    display_name: string;
    created_at: string;
  }[];
  const run = [...runs].sort((a, b) => b.id - a.id)[0];
  if (!run) throw new Error(`set ${querySetId} has no run`);
  const payloads: ReportSnapshot['payloads'] = {};
  for (const endpoint of metricEndpoints) {
    const path = endpoint.path.replace('{querySetId}', String(querySetId));
    payloads[endpoint.key] = { data: await get(path), error: null };
  }
  return {
    id: run.id,
    account: 'sandbox',
    brand,
    querySet: { id: querySetId, name: details.query_set_name, details },
    run,
    state: 'complete',
    completedAt: new Date().toISOString(),
    payloads,
  };
}

/** Every set (with a run) of every brand the sandbox serves, as the sync would store its newest run. */
export async function everySandboxSet(sandbox: Sandbox): Promise<ReportSnapshot[]> {
  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${sandbox.baseUrl}${path}`, {
      headers: { 'X-Api-Key': sandbox.apiKey, 'X-Api-Secret': sandbox.apiSecret },
    });
    return (await response.json()) as T;
  };
  const out: ReportSnapshot[] = [];
  for (const brand of await get<{ id: number; name: string }[]>('/brands/list'))
    for (const set of await get<{ id: number }[]>(`/sets/brands/${brand.id}/list`)) {
      // A set that has never run has nothing to report.
      const runs = await get<unknown[]>(`/sets/${set.id}/runs`);
      if (runs.length > 0) out.push(await sandboxSnapshot(sandbox, set.id, brand));
    }
  return out;
}
