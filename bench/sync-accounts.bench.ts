/**
 * `npm run bench:sync -- --accounts 200`: agency scale in one process. One `runSync` with N accounts,
 * each its own company of a `reportd sandbox --companies N` (key `sandbox-key-c`, its own brands,
 * sets and rate window), `query_sets: all` of that company and a small backfill, on SQLite and then
 * on PostgreSQL. It prints, per engine:
 *
 * - budget use = Σ_k least_k / (N × wall), where least_k = minimumDurationMs(requests_k, R, W) is the
 *   least time the server's window (R requests per W ms per key) allows for the requests key k made,
 *   and wall is the time the whole pass took. The N keys together may start at most N × R requests per
 *   W: this is the pass's throughput against that combined bound (1.0 = every key's window used to the
 *   full from start to end; goal >= 0.9). It is the mean of the per-key ratios, since every key runs
 *   for the same wall time;
 * - the slowest key's own ratio (least_k / wall, the minimum over keys: a starved account shows here);
 * - peak RSS of the process that ran the sync (`process.resourceUsage().maxRSS`), and its RSS before;
 * - -145 answers the client saw (goal 0);
 * - CPU of the sync process per request, how busy its event loop was, and request latency (p50/p95).
 *   A request counts against its key from its start until one window after its END (api/budget.ts),
 *   so each slot cycles every W + latency + the 2% margin: in this bench's short window, latency
 *   under load is what separates budget use from 1.0, a cost a real 60 s window makes 10× smaller.
 *
 *   npm run bench:sync -- --accounts 200                 # both engines, 12 requests per 6 s per key
 *   npm run bench:sync -- --accounts 50 --engine sqlite  # one engine
 *   options: --rate R/SECONDS (default 12/6: the real 2 requests/s per key, in a 10× shorter window),
 *            --backfill N (default 1), --concurrency N (per account, default 4),
 *            --pool-size N (PostgreSQL connections of the sync process; default: the store's, 10)
 *
 * - SQL statements per request the sync process sent to its store (bench/statement-count.ts).
 *
 * Then, on PostgreSQL, the same work by TWO sync processes sharing the accounts as two daemons do
 * (each registers an instance with the sync role and passes `share`, sync/share-accounts.ts; both
 * start once both are registered): the wall time, budget use over both (goal >= 0.9), and the
 * speed-up against the one-process PostgreSQL run beside its ceiling, `bound = 1 / budget_use_one`:
 * no pass can be shorter than the budget's minimum, so the speed-up can never exceed that (the
 * issue's 1.7× needs a single process below 0.59; a faster single process lowers the bound).
 * `--engine postgres,postgres-2` runs both PostgreSQL runs only; `--engine postgres-2` the
 * two-process run alone (no speed-up then).
 *
 * Each engine runs in a child process of its own (so its peak RSS is its own), which starts the
 * sandbox as a third process: the sandbox's CPU is then not the sync's. PostgreSQL is
 * REPORTD_BENCH_DATABASE_URL (a server whose user may CREATE DATABASE), or else a throwaway cluster
 * started like the tests' (see bench/store.bench.ts).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { minimumDurationMs } from '../src/api/retry-timing.js';
import { parseRate } from '../src/cli/sandbox.js';
import { accountShare } from '../src/daemon/account-share.js';
import { startInstance } from '../src/daemon/instance.js';
import { companyCredentials } from '../src/sandbox/dataset/companies.js';
import { openStore, type StoreTarget } from '../src/store/db.js';
import { storeClock } from '../src/store/db-clock.js';
import { listInstances } from '../src/store/instances.js';
import { runSync } from '../src/sync/sync.js';
import type { SyncAccount } from '../src/sync/types.js';
import { countStatements, statementCount, statementTally } from './statement-count.js';

const TARGET = 0.9;
const SPEEDUP_TARGET = 1.7;
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();

function flag(name: string, fallback: string): string {
  const index = process.argv.indexOf(name);
  return index >= 0 && process.argv[index + 1] !== undefined ? process.argv[index + 1]! : fallback;
}

const accountsCount = Number(flag('--accounts', '200'));
const rateText = flag('--rate', '12/6');
const rate = parseRate(rateText);
const backfill = Number(flag('--backfill', '1'));
const concurrency = Number(flag('--concurrency', '4'));
const engineFlag = flag('--engine', 'both');
/** PostgreSQL pool size (connections); absent: the store's default. */
const poolSize = process.argv.includes('--pool-size') ? Number(flag('--pool-size', '10')) : undefined;

interface EngineResult {
  engine: string;
  accounts: number;
  snapshots: number;
  snapshotsDue: number;
  requests: number;
  rateLimited: number;
  errors: string[];
  wallMs: number;
  use: number;
  slowestKeyUse: number;
  rssBeforeMb: number;
  peakRssMb: number;
  /** CPU (user + system) this process spent in the pass, and how busy its event loop was (0..1). */
  cpuMs: number;
  eventLoopBusy: number;
  /** SQL statements this process sent to the store during the pass (BEGIN/COMMIT/locks included). */
  statements: number;
  /** Request durations (grant to answer parsed), ms: each counts against its key's window (see budget.ts). */
  latencyP50: number;
  latencyP95: number;
  /** Requests per account (the two-process run adds both processes' up). */
  perAccount?: Record<string, number>;
  startedAt?: number;
  finishedAt?: number;
  /** Two processes: the one-process PostgreSQL wall time over this one's. */
  speedup?: number;
  /**
   * Two processes: the most `speedup` can be, 1 / the one-process budget use. The wall time cannot
   * go below the budget's minimum, so a faster single process leaves less to gain.
   */
  speedupBound?: number;
  /**
   * Two processes: what each synced, `accounts/snapshots` per process (accounts it sent a request
   * for), so a run where one process took every lease shows as `100/600 + 0/0`, not as a slow run.
   */
  split?: string;
}

/** The sandbox CLI as its own process; resolves with its base URL once it listens. */
async function startSandboxProcess(): Promise<{ baseUrl: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'sandbox',
      '--port',
      '0',
      '--companies',
      String(accountsCount),
      '--rate',
      rateText,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const url = /base URL:\s+(\S+)/.exec(out)?.[1];
      if (url && out.includes('Ctrl+C')) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  child.stdout!.resume();
  return { baseUrl, child };
}

/** One engine, in this process: the measurement itself. */
async function measure(
  engine: string,
  target: StoreTarget,
  shared?: { baseUrl: string; peers: number },
): Promise<EngineResult> {
  const { baseUrl, child } = shared
    ? { baseUrl: shared.baseUrl, child: undefined }
    : await startSandboxProcess();
  const store = await openStore(target, { poolSize });
  // As a daemon: an instance with the sync role, the database's clock, and its share of the accounts.
  const clock = shared ? await storeClock(store) : undefined;
  const instance = shared ? await startInstance({ store, roles: ['sync'], clock }) : undefined;
  if (shared) {
    // Both processes start together, once both are registered (else the first would take it all).
    while (
      (await listInstances(store, clock!.now() - 60_000)).filter((i) => i.stopped_at === null).length <
      shared.peers
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const rssBefore = process.memoryUsage().rss;
  const base = { apiKey: 'sandbox-key', apiSecret: 'sandbox-secret' };
  const accounts: SyncAccount[] = Array.from({ length: accountsCount }, (_, i) => {
    const { apiKey, apiSecret } = companyCredentials(i + 1, base);
    return {
      name: `company-${i + 1}`,
      base_url: baseUrl,
      api_key: apiKey,
      api_secret: apiSecret,
      rate_limit: { requests: rate.requests, window_seconds: rate.windowMs / 1000 },
      concurrency,
      timeout_seconds: 60,
    };
  });
  const perAccount = new Map<string, number>();
  const durations: number[] = [];
  const cpuBefore = process.cpuUsage();
  const eluBefore = performance.eventLoopUtilization();
  const statementsBefore = statementCount();
  try {
    const summary = await runSync({
      store,
      accounts,
      ...(shared ? { clock, share: accountShare(store, clock!) } : {}),
      settings: {
        query_sets: 'all',
        backfill_runs: backfill,
        catalog_ttl_minutes: 60,
        max_payload_retries: 3,
      },
      onRequest: (event) => {
        perAccount.set(event.account, (perAccount.get(event.account) ?? 0) + 1);
        durations.push(event.durationMs);
      },
    });
    const wall = summary.durationMs;
    const cpu = process.cpuUsage(cpuBefore);
    const elu = performance.eventLoopUtilization(eluBefore);
    const statements = statementCount() - statementsBefore;
    // The server's window, not the budget's (which adds a small skew margin): the honest yardstick.
    const ratios = accounts.map(
      (a) => minimumDurationMs(perAccount.get(a.name) ?? 0, rate.requests, rate.windowMs) / wall,
    );
    return {
      engine,
      accounts: accountsCount,
      snapshots: summary.snapshotsCompleted,
      snapshotsDue: summary.snapshotsDue,
      requests: summary.requests,
      rateLimited: summary.rateLimited,
      errors: summary.errors.map((e) => e.message),
      wallMs: wall,
      use: ratios.reduce((a, b) => a + b, 0) / ratios.length,
      slowestKeyUse: Math.min(...ratios),
      rssBeforeMb: rssBefore / 1024 / 1024,
      // maxRSS is in kilobytes.
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      cpuMs: (cpu.user + cpu.system) / 1000,
      eventLoopBusy: elu.utilization,
      statements,
      latencyP50: quantile(durations, 0.5),
      latencyP95: quantile(durations, 0.95),
      perAccount: Object.fromEntries(perAccount),
      startedAt: Date.now() - wall,
      finishedAt: Date.now(),
    };
  } finally {
    await instance?.close();
    clock?.close();
    await store.close();
    child?.kill('SIGTERM');
  }
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(q * (sorted.length - 1))] ?? 0;
}

async function freshDatabase(adminUrl: string): Promise<string> {
  const name = `reportd_bench_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`CREATE DATABASE ${name} TEMPLATE template0`);
  await client.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs one engine in a child process of this script and reads back its one JSON line. */
function inChild(
  engine: string,
  target: StoreTarget,
  shared?: { baseUrl: string; peers: number },
): Promise<EngineResult> {
  const child = spawn(
    process.execPath,
    [
      // BENCH_CPU_PROF=<dir>: a V8 CPU profile of each sync process (NODE_OPTIONS refuses --cpu-prof).
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      '--import',
      'tsx',
      'bench/sync-accounts.bench.ts',
      ...process.argv.slice(2),
      '--child',
      JSON.stringify({ engine, target, shared }),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout!.on('data', (chunk) => {
    out += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{'))
        return reject(new Error(`${engine} run exited with ${code}: ${out}`));
      resolve(JSON.parse(line) as EngineResult);
    });
  });
}

/**
 * Two sync processes sharing the accounts on one database and one sandbox: wall time from the first
 * start to the last end, budget use over both (requests per key added up), and the speed-up against
 * the one-process PostgreSQL run.
 */
async function twoProcesses(target: StoreTarget, one?: EngineResult): Promise<EngineResult> {
  const { baseUrl, child } = await startSandboxProcess();
  try {
    const shared = { baseUrl, peers: 2 };
    const [a, b] = await Promise.all([
      inChild('postgres-2', target, shared),
      inChild('postgres-2', target, shared),
    ]);
    const wall = Math.max(a.finishedAt!, b.finishedAt!) - Math.min(a.startedAt!, b.startedAt!);
    const perAccount = new Map<string, number>();
    for (const r of [a, b]) {
      for (const [account, n] of Object.entries(r.perAccount ?? {})) {
        perAccount.set(account, (perAccount.get(account) ?? 0) + n);
      }
    }
    const ratios = Array.from(
      { length: accountsCount },
      (_, i) =>
        minimumDurationMs(perAccount.get(`company-${i + 1}`) ?? 0, rate.requests, rate.windowMs) / wall,
    );
    return {
      engine: 'pg×2',
      accounts: accountsCount,
      snapshots: a.snapshots + b.snapshots,
      snapshotsDue: a.snapshotsDue + b.snapshotsDue,
      requests: a.requests + b.requests,
      rateLimited: a.rateLimited + b.rateLimited,
      errors: [...a.errors, ...b.errors],
      wallMs: wall,
      use: ratios.reduce((x, y) => x + y, 0) / ratios.length,
      slowestKeyUse: Math.min(...ratios),
      rssBeforeMb: Math.max(a.rssBeforeMb, b.rssBeforeMb),
      peakRssMb: Math.max(a.peakRssMb, b.peakRssMb),
      cpuMs: a.cpuMs + b.cpuMs,
      eventLoopBusy: Math.max(a.eventLoopBusy, b.eventLoopBusy),
      statements: a.statements + b.statements,
      latencyP50: Math.max(a.latencyP50, b.latencyP50),
      latencyP95: Math.max(a.latencyP95, b.latencyP95),
      ...(one ? { speedup: one.wallMs / wall, speedupBound: 1 / one.use } : {}),
      split: [a, b].map((r) => `${Object.keys(r.perAccount ?? {}).length}/${r.snapshots}`).join(' + '),
    };
  } finally {
    child.kill('SIGTERM');
  }
}

function report(r: EngineResult): string {
  const ok = r.errors.length === 0 && r.rateLimited === 0 && r.use >= TARGET;
  return [
    `  ${r.engine.padEnd(8)}`,
    `snapshots=${r.snapshots}/${r.snapshotsDue}`,
    `requests=${r.requests}`,
    `rate_limited=${r.rateLimited}`,
    `took_ms=${r.wallMs}`,
    `budget_use=${r.use.toFixed(3)} (target >= ${TARGET})`,
    `slowest_key=${r.slowestKeyUse.toFixed(3)}`,
    `rss_before=${r.rssBeforeMb.toFixed(0)}MB`,
    `peak_rss=${r.peakRssMb.toFixed(0)}MB`,
    `cpu_ms=${r.cpuMs.toFixed(0)} (${((r.cpuMs * 1000) / Math.max(1, r.requests)).toFixed(0)} µs/request)`,
    `event_loop_busy=${r.eventLoopBusy.toFixed(2)}`,
    `statements_per_request=${(r.statements / Math.max(1, r.requests)).toFixed(1)}`,
    `latency_p50/p95=${r.latencyP50.toFixed(0)}/${r.latencyP95.toFixed(0)}ms`,
    `errors=${r.errors.length}`,
    ...(r.split === undefined ? [] : [`accounts/snapshots_per_process=${r.split}`]),
    ...(r.speedup === undefined
      ? []
      : [
          `speedup_vs_one=${r.speedup.toFixed(2)} (target >= ${SPEEDUP_TARGET}; bound = 1 / budget_use_one = ${r.speedupBound!.toFixed(2)})`,
        ]),
    // The speed-up is shown against its bound, not judged: budget use is the goal that can be met.
    ok ? 'OK' : 'BELOW TARGET',
  ].join(' ');
}

const childArg = process.argv.indexOf('--child');
if (childArg >= 0) {
  const { engine, target, shared } = JSON.parse(process.argv[childArg + 1]!) as {
    engine: string;
    target: StoreTarget;
    shared?: { baseUrl: string; peers: number };
  };
  countStatements();
  const result = await measure(engine, target, shared);
  const tally = statementTally();
  if (tally) process.stderr.write(`statements of ${engine} (BENCH_STATEMENTS=1):\n${tally}\n`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  // The pg pool or a stray timer must not keep the child alive after its answer.
  process.exit(0);
} else {
  const engines = engineFlag === 'both' ? ['sqlite', 'postgres', 'postgres-2'] : engineFlag.split(',');
  const dir = mkdtempSync(join(tmpdir(), 'reportd-bench-accounts-'));
  const wantsPg = engines.some((engine) => engine.startsWith('postgres'));
  const { startPostgresCluster } = await import('../test/helpers/postgres-cluster.js');
  const cluster =
    wantsPg && !process.env.REPORTD_BENCH_DATABASE_URL ? await startPostgresCluster() : undefined;
  const adminUrl = process.env.REPORTD_BENCH_DATABASE_URL ?? cluster?.adminUrl;
  let failed = false;
  try {
    process.stdout.write(
      `bench:sync --accounts ${accountsCount}: one runSync, ${accountsCount} keys at ${rate.requests} requests per ${rate.windowMs} ms each (combined bound ${((accountsCount * rate.requests * 1000) / rate.windowMs).toFixed(0)} requests/s), query_sets all, backfill ${backfill}, concurrency ${concurrency} per account\n`,
    );
    process.stdout.write(`load before: ${uptime()}\n`);
    let onePostgres: EngineResult | undefined;
    for (const engine of engines) {
      const target: StoreTarget = engine.startsWith('postgres')
        ? { url: await freshDatabase(adminUrl!) }
        : { path: join(dir, 'bench.sqlite') };
      const result =
        engine === 'postgres-2' ? await twoProcesses(target, onePostgres) : await inChild(engine, target);
      if (engine === 'postgres') onePostgres = result;
      process.stdout.write(`${report(result)}\n`);
      for (const message of result.errors.slice(0, 5)) process.stderr.write(`    ${message}\n`);
      failed ||= result.errors.length > 0 || result.rateLimited > 0 || result.use < TARGET;
    }
    process.stdout.write(`load after: ${uptime()}\n`);
  } finally {
    cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  process.exitCode = failed ? 1 : 0;
}
