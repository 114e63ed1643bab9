import { metricEndpoints } from '../../src/api/endpoints.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import type { StoredSnapshot } from '../../src/store/snapshots.js';

/**
 * A StoredSnapshot filled over real HTTP from the sandbox, the way sync stores one: each payload as the
 * JSON the server sent, or the failure in `error`. `keys` limits the endpoints fetched (history
 * snapshots only need the KPI cards, and the sandbox's rate window is shared by the whole file).
 */
export async function sandboxSnapshot(
  sandbox: Sandbox,
  querySetId: number,
  options: { runId?: number; keys?: readonly string[]; id?: number } = {},
): Promise<StoredSnapshot> {
  const get = async (path: string, query = ''): Promise<{ data: unknown; error: string | null }> => {
    const response = await fetch(`${sandbox.baseUrl}${path}${query}`, {
      headers: { 'X-Api-Key': sandbox.apiKey, 'X-Api-Secret': sandbox.apiSecret },
    });
    const body: unknown = await response.json();
    return response.ok ? { data: body, error: null } : { data: null, error: JSON.stringify(body) };
  };
  const details = (await get(`/sets/${querySetId}/details`)).data as {
    query_set_name: string;
  };
  const runs = (await get(`/sets/${querySetId}/runs`)).data as {
    id: number;
    display_name: string;
    created_at: string;
  }[];
  const latest = runs.reduce((a, b) => (Date.parse(b.created_at) > Date.parse(a.created_at) ? b : a));
  const run = options.runId === undefined ? latest : runs.find((r) => r.id === options.runId);
  if (!run) throw new Error(`sandbox set ${querySetId} has no run ${options.runId}`);
  const query = run.id === latest.id ? '' : `?end_run_id=${run.id}`;

  const payloads: StoredSnapshot['payloads'] = {};
  for (const endpoint of metricEndpoints) {
    if (options.keys && !options.keys.includes(endpoint.key)) continue;
    payloads[endpoint.key] = await get(endpoint.path.replace('{querySetId}', String(querySetId)), query);
  }
  return {
    id: options.id ?? run.id,
    account: 'sandbox',
    // The sandbox's sets 101-103 belong to brand 1 (contracts.md); saves two catalog requests per snapshot.
    brand: { id: 1, name: 'Northwind Coffee' },
    querySet: { id: querySetId, name: details.query_set_name, details },
    run,
    state: 'complete',
    completedAt: '2026-11-20T10:00:00Z',
    payloads,
  };
}

/** The runs of a set, newest first as the store lists them. */
export async function sandboxRuns(
  sandbox: Sandbox,
  querySetId: number,
): Promise<{ id: number; created_at: string }[]> {
  const response = await fetch(`${sandbox.baseUrl}/sets/${querySetId}/runs`, {
    headers: { 'X-Api-Key': sandbox.apiKey, 'X-Api-Secret': sandbox.apiSecret },
  });
  const runs = (await response.json()) as { id: number; created_at: string }[];
  return [...runs].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
}
