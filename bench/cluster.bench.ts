/**
 * `npm run bench:cluster [-- --rows 60]`: how deliveries scale with daemons on one PostgreSQL store.
 *
 *   setup:  a throwaway PostgreSQL (or REPORTD_BENCH_DATABASE_URL), the sandbox synced once into a
 *           template database (each scenario gets a fresh copy), a real SMTP server (smtp-server) that
 *           counts Message-IDs, `reportd daemon --roles worker` processes (the built CLI), each with
 *           `chromium.concurrency: 1` and pinned with `taskset` to one core, as a stand-in for one
 *           single-core machine per daemon: on this host, daemon i gets core i mod nproc.
 *   run:    `--rows` (default 60) report deliveries, each a real Chromium PDF, enqueued at once after
 *           every daemon has started; timed until the SMTP server holds that many distinct Message-IDs.
 *   prints: deliveries per minute with 1, 2 and 3 daemons, the ratios 2:1 and 3:1, duplicates
 *           (copies of a Message-ID at the server; must be 0), then 2 daemons with one killed by
 *           SIGKILL once half the rows arrived: rows lost (must be 0), how long the rows the killed
 *           daemon held took to go out after the kill (bound: the outbox lease, 90 s), duplicates.
 *
 * More daemons than cores share cores: with 2 cores, the 3-daemon figure measures contention, not a
 * third machine. The host's load (`uptime`) is printed before and after; on a shared machine the
 * figures move with it.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { loadConfig } from '../src/config/load.js';
import { latestRuns } from '../src/delivery/due.js';
import { Outbox } from '../src/delivery/outbox-worker.js';
import { listDeliveries } from '../src/outbox/reads.js';
import { startSandbox } from '../src/sandbox/server.js';
import { openStore } from '../src/store/db.js';
import { runSync } from '../src/sync/sync.js';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.js';

const BIN = fileURLToPath(new URL('../bin/reportd.js', import.meta.url));
const ROWS = Number(flag('--rows') ?? 60);
const LEASE_MS = 90_000; // the outbox's default lease (delivery/outbox.ts)
const CORES = availableParallelism();

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
const dir = mkdtempSync(join(tmpdir(), 'reportd-bench-cluster-'));
const cluster = process.env.REPORTD_BENCH_DATABASE_URL ? undefined : await startPostgresCluster();
const adminUrl = process.env.REPORTD_BENCH_DATABASE_URL ?? cluster!.adminUrl;
const prefix = `reportd_bench_cluster_${randomBytes(3).toString('hex')}`;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
function databaseUrl(name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

// --- the SMTP server: counts arrivals per Message-ID (headers only; the PDF is not parsed).
const arrivals = new Map<string, number>();
let arrivedAt: number[] = [];
const smtp = new SMTPServer({
  secure: false,
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  size: 50 * 1024 * 1024,
  onData(stream, _session, callback) {
    let head = '';
    stream.on('data', (chunk: Buffer) => {
      if (head.length < 16_384) head += chunk.toString('latin1');
    });
    stream.on('end', () => {
      const id = /^Message-ID:\s*(<[^>]+>)/im.exec(head)?.[1] ?? `(none ${arrivals.size})`;
      arrivals.set(id, (arrivals.get(id) ?? 0) + 1);
      arrivedAt.push(Date.now());
      callback();
    });
  },
});
await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
const smtpPort = (smtp.server.address() as { port: number }).port;

// --- the sandbox, synced once into the template database.
const sandbox = await startSandbox({ rate: { requests: 100_000, windowMs: 1000 } });
const template = `${prefix}_template`;
await admin(`CREATE DATABASE ${template} TEMPLATE template0`);

function writeConfig(database: string): string {
  const path = join(dir, `${database}.yaml`);
  writeFileSync(
    path,
    `accounts:
  - name: bench
    base_url: "${sandbox.baseUrl}"
    api_key: ${sandbox.apiKey}
    api_secret: ${sandbox.apiSecret}
    rate_limit: { requests: 100000, window_seconds: 1 }
store: { url: "${databaseUrl(database)}" }
sync: { query_sets: [101, 102], backfill_runs: 1, schedule: "0 0 1 1 *" }
output: { dir: "${join(dir, 'out', database)}" }
chromium: { concurrency: 1 }
smtp: { url: "smtp://127.0.0.1:${smtpPort}", from: "Reports <reports@example.com>" }
reports:
  - name: bench
    query_sets: [101, 102]
    mode: per_set
    formats: [pdf]
    schedule: { cron: "0 8 1 1 *" }
    email: { to: [board@example.com] }
daemon: { roles: [worker], poll_seconds: 0.2 }
log: { level: info }
`,
  );
  return path;
}

{
  const config = loadConfig(writeConfig(template));
  const store = await openStore(config.store);
  const summary = await runSync({ store, accounts: config.accounts, settings: config.sync });
  await store.close();
  if (summary.errors.length > 0) throw new Error(`bench sync failed: ${summary.errors[0]!.message}`);
}

interface Daemon {
  child: ChildProcess;
  pid: number;
  exited: Promise<void>;
}

/** `reportd daemon` (the built CLI) pinned to one core; resolves once it logged "daemon started". */
async function startDaemon(configPath: string, index: number): Promise<Daemon> {
  const core = index % CORES;
  const child = spawn(
    'taskset',
    ['-c', String(core), process.execPath, BIN, 'daemon', '--config', configPath],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let logs = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk) => {
      // Kept until it started (for the error below); the delivery logs after that are dropped.
      if (logs.length < 100_000) logs += chunk;
      if (logs.includes('daemon started')) resolve();
    });
    child.on('exit', () => reject(new Error(`daemon ${index} exited early:\n${logs.slice(-2000)}`)));
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { child, pid: child.pid!, exited };
}

interface Result {
  daemons: number;
  ms: number;
  perMinute: number;
  duplicates: number;
  lost: number;
  /** Kill scenario: longest time from the kill until a row the killed daemon held was sent. */
  takeoverMs?: number;
  heldAtKill?: number;
}

async function scenario(daemons: number, killAfter?: number): Promise<Result> {
  const database = `${prefix}_${daemons}${killAfter ? 'k' : ''}`;
  await admin(`CREATE DATABASE ${database} TEMPLATE ${template}`);
  const configPath = writeConfig(database);
  const config = loadConfig(configPath);
  arrivals.clear();
  arrivedAt = [];
  const running = await Promise.all(Array.from({ length: daemons }, (_, i) => startDaemon(configPath, i)));
  const store = await openStore(config.store);
  // What a scheduler does at a busy slot: ROWS deliveries due at once (generations of the two sets' runs).
  const outbox = new Outbox({
    store,
    renderer: { render: () => Promise.reject(new Error('the bench process only enqueues')) },
    mailer: { send: () => Promise.reject(new Error('the bench process only enqueues')), close() {} },
    from: config.smtp!.from,
    reports: config.reports,
  });
  const runs = await latestRuns(store, config.reports[0]!, config.accounts);
  const started = Date.now();
  for (let i = 0; i < ROWS; i++) {
    const run = runs[i % runs.length]!;
    await outbox.enqueue(
      { report: 'bench', querySetId: run.querySetId, runId: run.runId, account: run.account },
      { force: true },
    );
  }
  let takeoverMs: number | undefined;
  let heldAtKill: number | undefined;
  if (killAfter !== undefined) {
    while (arrivals.size < killAfter) await sleep(50);
    const victim = running[0]!;
    const before = await listDeliveries(store, ROWS + 10);
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.exited;
    const held = before.filter(
      (d) => (d.state === 'rendering' || d.state === 'sending') && d.claimedBy?.includes(`:${victim.pid}:`),
    );
    heldAtKill = held.length;
    const deadline = killedAt + LEASE_MS * 2;
    for (;;) {
      const rows = await listDeliveries(store, ROWS + 10);
      const pending = held.filter((h) => rows.find((r) => r.id === h.id)?.state !== 'sent');
      if (pending.length === 0) {
        const sentAt = held.map((h) => rows.find((r) => r.id === h.id)!.sentAt ?? killedAt);
        takeoverMs = Math.max(0, ...sentAt.map((at) => at - killedAt));
        break;
      }
      if (Date.now() > deadline) break;
      await sleep(100);
    }
  }
  const deadline = Date.now() + Number(flag('--timeout-minutes') ?? 20) * 60_000;
  while (arrivals.size < ROWS && Date.now() < deadline) await sleep(50);
  if (arrivals.size < ROWS) {
    // Say why instead of printing a rate for work that did not finish.
    const stuck = (await listDeliveries(store, ROWS + 10)).filter((r) => r.state !== 'sent');
    console.log(
      `  ${daemons} daemon(s): only ${arrivals.size}/${ROWS} arrived; not sent: ${stuck.map((r) => `${r.id} ${r.state} ${r.lastError ?? ''}`).join('; ')}`,
    );
  }
  const ms = Math.max(...arrivedAt) - started;
  await sleep(1_500); // a duplicate would arrive now
  const rows = await listDeliveries(store, ROWS + 10);
  for (const daemon of running) daemon.child.kill('SIGTERM');
  await Promise.all(running.map((d) => d.exited));
  await store.close();
  const total = [...arrivals.values()].reduce((a, b) => a + b, 0);
  return {
    daemons,
    ms,
    perMinute: (ROWS / ms) * 60_000,
    duplicates: total - arrivals.size,
    lost: rows.filter((r) => r.state !== 'sent').length,
    ...(takeoverMs === undefined ? {} : { takeoverMs }),
    ...(heldAtKill === undefined ? {} : { heldAtKill }),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

console.log(`bench:cluster — ${ROWS} PDF deliveries, ${CORES} cores, PostgreSQL, real SMTP`);
console.log(
  `setup: each daemon --roles worker, chromium.concurrency 1, taskset to core (i mod ${CORES}); poll 0.2 s`,
);
console.log(`load before: ${uptime()}`);
try {
  const results: Result[] = [];
  for (const n of [1, 2, 3]) {
    const result = await scenario(n);
    results.push(result);
    console.log(
      `  ${n} daemon${n > 1 ? 's' : ' '}: ${result.perMinute.toFixed(1).padStart(6)} deliveries/min (${(result.ms / 1000).toFixed(1)} s)  duplicates ${result.duplicates}  not sent ${result.lost}`,
    );
  }
  const [one, two, three] = results as [Result, Result, Result];
  console.log(
    `  scaling: 2:1 ${(two.perMinute / one.perMinute).toFixed(2)}x (goal >= 1.7x), 3:1 ${(three.perMinute / one.perMinute).toFixed(2)}x (3 daemons on ${CORES} cores)`,
  );
  const killed = await scenario(2, Math.floor(ROWS / 2));
  console.log(
    `  2 daemons, one kill -9'd after ${Math.floor(ROWS / 2)} arrived: ${killed.perMinute.toFixed(1)} deliveries/min, not sent ${killed.lost}, duplicates ${killed.duplicates}, ` +
      (killed.heldAtKill === 0
        ? 'it held no row at the kill'
        : `the ${killed.heldAtKill} row(s) it held sent ${killed.takeoverMs === undefined ? 'NOT within 2 leases' : `${(killed.takeoverMs / 1000).toFixed(1)} s after the kill`} (lease ${LEASE_MS / 1000} s)`),
  );
  console.log(`load after: ${uptime()}`);
} finally {
  await sandbox.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  if (cluster) cluster.stop();
  else {
    // A server that outlives the bench keeps nothing of it.
    for (const name of [template, ...['1', '2', '3', '2k'].map((n) => `${prefix}_${n}`)]) {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
}
