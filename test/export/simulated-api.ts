import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricEndpoints } from '../../src/api/endpoints.js';
import { drawRun, generator, payloadsOf, type Rates, type RunTally } from '../insight/simulated-runs.js';

/**
 * A stand-in for the Integration API whose query sets publish runs drawn answer by answer from known
 * rates (test/insight/simulated-runs.ts): every figure reportd judges comes from one simulated set of
 * answers per run, so a quiet world is truly quiet and a true fall is exactly as large as asked.
 * Endpoints whose figures are never judged (Life scores, sources, market…) are the sandbox's own
 * payloads for its set 101, the same in every run. Answers with the JSON the spec gives.
 */

export interface SimulatedSet {
  id: number;
  /** The rates of each published run, oldest first (an unpublished run before them gives the deltas). */
  runs: readonly Rates[];
  /** Queries per intent (default 240 queries over 6 intents). */
  queries?: readonly number[];
  seed: number;
}

const ENGINES = [
  { id: 3, name: 'ChatGPT' },
  { id: 5, name: 'Perplexity' },
  { id: 7, name: 'Gemini' },
  { id: 9, name: 'Claude' },
  { id: 11, name: 'Copilot' },
];

export async function startSimulatedApi(
  sets: readonly SimulatedSet[],
  sandbox: { baseUrl: string; apiKey: string; apiSecret: string },
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const runId = (set: number, run: number) => set * 10 + run + 1;
  const createdAt = (run: number) => new Date(Date.UTC(2026, 0, 5 + 7 * run, 8)).toISOString();
  // Each set's runs drawn once, with the run before the first (for the first run's deltas).
  const tallies = new Map<number, RunTally[]>();
  for (const set of sets) {
    const random = generator(set.seed);
    const draw = (rates: Rates) => drawRun(rates, random, set.queries);
    tallies.set(set.id, [draw(set.runs[0]!), ...set.runs.map(draw)]);
  }
  const byPath = new Map(metricEndpoints.map((e) => [e.path.replace('{querySetId}', '(\\d+)'), e.key]));
  const upstream = new URL(sandbox.baseUrl);
  const filler = async (path: string) => {
    const response = await fetch(`${sandbox.baseUrl}${path}`, {
      headers: { 'X-Api-Key': sandbox.apiKey, 'X-Api-Secret': sandbox.apiSecret },
    });
    return response.json() as Promise<unknown>;
  };

  const answer = async (path: string, query: URLSearchParams): Promise<unknown> => {
    if (path === '/brands/list') return [{ id: 1, name: 'Acme' }];
    if (path === '/sets/brands/1/list')
      return sets.map((s) => ({ id: s.id, name: `Set ${s.id}`, created_at: createdAt(0) }));
    const catalog = /^\/sets\/(\d+)\/(details|runs)$/.exec(path);
    const set = sets.find((s) => s.id === Number(catalog?.[1] ?? /\/sets\/(\d+)\//.exec(path)?.[1]));
    if (!set) return { error_code: -132, message: 'query set not found' };
    const queries = (set.queries ?? [240]).reduce((a, b) => a + b, 0);
    if (catalog?.[2] === 'details')
      return {
        query_set_id: set.id,
        query_set_name: `Set ${set.id}`,
        display_name: `Week ${set.runs.length}`,
        created_at: createdAt(0),
        queries_count: queries,
        engines: ENGINES.map((e) => ({ ...e, image: 'https://example.com/e.png', ai_model_name: e.name })),
        date: '05/01/2026',
      };
    if (catalog?.[2] === 'runs')
      return set.runs.map((_, i) => ({
        id: runId(set.id, i),
        display_name: `Week ${i + 1}`,
        created_at: createdAt(i),
      }));
    for (const [pattern, key] of byPath) {
      if (!new RegExp(`^${pattern}$`).test(path)) continue;
      const run = Number(query.get('end_run_id') ?? runId(set.id, set.runs.length - 1)) - set.id * 10 - 1;
      const runs = tallies.get(set.id)!;
      const payloads = payloadsOf(runs[run + 1]!, runs[run]!);
      return payloads[key] ?? filler(path.replace(`/sets/${set.id}/`, '/sets/101/'));
    }
    return { error_code: -3, message: `no such endpoint ${path}` };
  };

  const server: Server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const path = url.pathname.slice(upstream.pathname.length);
      const body = await answer(path, url.searchParams);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${upstream.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
