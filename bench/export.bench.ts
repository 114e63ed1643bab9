/**
 * `npm run bench:export`: 200 stored snapshots (one synced from the sandbox, 199 copies of its rows as
 * further runs of the set), their metric rows derived as the backfill at open does, then exported to
 * CSV and to Parquet. Prints the rows, the time and rows/s of each export, and the derivation time per
 * snapshot. Goals: each export of the 200 snapshots under 2 s, derivation under 20 ms per snapshot.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportMetrics } from '../src/export/export.js';
import { startSandbox } from '../src/sandbox/server.js';
import { openStore } from '../src/store/db.js';
import { backfillMetricRows } from '../src/store/metric-values.js';
import { runSync } from '../src/sync/sync.js';
import { copySnapshots } from '../test/helpers/synth-snapshots.js';

const SNAPSHOTS = 200;
/** CPU time of this process in ms: on a shared machine, the part of the wall time that was ours. */
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
const GOALS = { exportMs: 2000, deriveMs: 20 };

const sandbox = await startSandbox({ rate: { requests: 2000, windowMs: 1000 } });
const dir = mkdtempSync(join(tmpdir(), 'reportd-bench-export-'));
const path = join(dir, 'bench.sqlite');
try {
  const store = await openStore(path);
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

  const deriveStart = performance.now();
  const deriveCpu = cpuMs();
  const derived = await backfillMetricRows(store);
  const deriveMs = (performance.now() - deriveStart) / derived;
  const deriveCpuMs = (cpuMs() - deriveCpu) / derived;

  const lines: string[] = [];
  const results: boolean[] = [deriveMs < GOALS.deriveMs];
  for (const format of ['csv', 'parquet'] as const) {
    const out = join(dir, format);
    const start = performance.now();
    const cpu = cpuMs();
    const result = await exportMetrics(store, { format, outDir: out });
    const ms = performance.now() - start;
    const used = cpuMs() - cpu;
    const size = statSync(join(out, `metric_values.${format}`)).size;
    results.push(ms < GOALS.exportMs);
    lines.push(
      `${format.padEnd(7)} ${result.snapshots} snapshots, ${result.rows} rows in ${ms.toFixed(0)} ms ` +
        `(${Math.round(result.rows / (ms / 1000)).toLocaleString('en-US')} rows/s; CPU ${used.toFixed(0)} ms), ` +
        `metric_values.${format} ` +
        `${(size / 1024 / 1024).toFixed(1)} MB  goal < ${GOALS.exportMs} ms`,
    );
  }
  await store.close();
  process.stdout.write(
    [
      `load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
      `derive  ${derived} snapshots, ${deriveMs.toFixed(2)} ms per snapshot (CPU ${deriveCpuMs.toFixed(2)} ms)  goal < ${GOALS.deriveMs} ms`,
      ...lines,
      results.every(Boolean) ? 'all goals met' : 'GOAL MISSED',
      '',
    ].join('\n'),
  );
  if (!results.every(Boolean)) process.exitCode = 1;
} finally {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}
