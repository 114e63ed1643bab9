/**
 * `npm run bench:mcp`: the MCP tools' latency on a store of 200 snapshots (one synced from the
 * sandbox, 199 copies of it as further runs of the set, rows derived as at open). Each tool is called
 * through the SDK's own client over an in-memory transport (the protocol's encoding and schema checks
 * included, no process boundary), 60 times after 5 warm-up calls. Prints p50/p95 per tool, and the
 * p95 of the CPU time this process spent per call (on a shared machine, the part of the wall time
 * that was the tool's own).
 * Goal: p95 under 50 ms for metric_series and compare_runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '../src/mcp/server.js';
import { startSandbox } from '../src/sandbox/server.js';
import { openStore } from '../src/store/db.js';
import { backfillMetricRows } from '../src/store/metric-values.js';
import { runSync } from '../src/sync/sync.js';
import { copySnapshots } from '../test/helpers/synth-snapshots.js';

const SNAPSHOTS = 200;
const CALLS = 60;
const GOAL_MS = 50;

const sandbox = await startSandbox({ rate: { requests: 2000, windowMs: 1000 } });
const dir = mkdtempSync(join(tmpdir(), 'reportd-bench-mcp-'));
try {
  const store = await openStore(join(dir, 'bench.sqlite'));
  await runSync({
    store,
    accounts: [
      {
        name: 'bench',
        base_url: sandbox.baseUrl,
        api_key: sandbox.apiKey,
        api_secret: sandbox.apiSecret,
        rate_limit: { requests: 2000, window_seconds: 1 },
        concurrency: 8,
        timeout_seconds: 30,
      },
    ],
    settings: { query_sets: [101], backfill_runs: 1, catalog_ttl_minutes: 60, max_payload_retries: 3 },
  });
  const template = (await store.get<{ id: number }>(`SELECT id FROM snapshots WHERE state = 'complete'`))!.id;
  await copySnapshots(store, template, SNAPSHOTS - 1);
  await backfillMetricRows(store);
  const runs = await store.all<{ run_id: number }>(
    'SELECT run_id FROM snapshots WHERE query_set_id = 101 ORDER BY run_id',
  );

  const server = createMcpServer({ store });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);

  const cases: [string, string, Record<string, unknown>, boolean][] = [
    [
      'metric_series (100 runs)',
      'metric_series',
      { query_set_id: 101, metric: 'presence.weighted.current', last_runs: 100 },
      true,
    ],
    [
      'metric_series (by engine, 100 runs)',
      'metric_series',
      { query_set_id: 101, metric: 'presence.by-engine.weighted', by: 'engine', last_runs: 100 },
      true,
    ],
    ['compare_runs (newest vs previous)', 'compare_runs', { query_set_id: 101 }, true],
    [
      'compare_runs (first vs newest)',
      'compare_runs',
      { query_set_id: 101, base_run_id: runs[0]!.run_id, run_id: runs.at(-1)!.run_id, limit: 100 },
      true,
    ],
    ['list_runs', 'list_runs', { query_set_id: 101, limit: 100 }, false],
    ['error_register', 'error_register', { query_set_id: 101, from_run_id: runs[0]!.run_id }, false],
    ['cited_sources', 'cited_sources', { query_set_id: 101 }, false],
  ];
  const lines: string[] = [];
  let met = true;
  for (const [label, name, args, goal] of cases) {
    const times: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < CALLS + 5; i++) {
      const start = performance.now();
      const used = process.cpuUsage();
      const result = await client.callTool({ name, arguments: args });
      const ms = performance.now() - start;
      const { user, system } = process.cpuUsage(used);
      if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
      if (i >= 5) {
        times.push(ms);
        cpu.push((user + system) / 1000);
      }
    }
    const p = (list: number[], q: number) => {
      const sorted = [...list].sort((a, b) => a - b);
      return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    };
    if (goal && p(times, 0.95) >= GOAL_MS) met = false;
    lines.push(
      `${label.padEnd(36)} p50 ${p(times, 0.5).toFixed(1).padStart(6)} ms  p95 ${p(times, 0.95).toFixed(1).padStart(6)} ms` +
        `  (CPU p95 ${p(cpu, 0.95).toFixed(1)} ms)${goal ? `  goal p95 < ${GOAL_MS} ms` : ''}`,
    );
  }
  await client.close();
  await store.close();
  process.stdout.write(
    [
      `load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores; ${SNAPSHOTS} snapshots of set 101, ${CALLS} calls per tool`,
      ...lines,
      met ? 'all goals met' : 'GOAL MISSED',
      '',
    ].join('\n'),
  );
} finally {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}
