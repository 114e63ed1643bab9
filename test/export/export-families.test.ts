import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../delivery/smtp-helpers.js';
import { runCli } from '../helpers/cli.js';
import { QUIET_RATES } from '../insight/simulated-runs.js';
import { startSimulatedApi } from './simulated-api.js';

/**
 * The export judges each run's changes as one family, end to end: a stand-in API (simulated-api.ts)
 * publishes two runs of ten sets drawn from the same rates, and an eleventh set whose presence falls
 * 10 points on 600 answers; `reportd sync` stores them over HTTP and `reportd export` writes
 * `metric_changes`. At most one quiet set may show a likely change; the true fall is a likely one.
 */

let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let api: Awaited<ReturnType<typeof startSimulatedApi>>;
let config: string;

const QUIET = Array.from({ length: 10 }, (_, i) => 901 + i);
const FALLEN = 911;

beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox({ rate: { requests: 100_000, windowMs: 60_000 } });
  const fallen = { ...QUIET_RATES, presence: QUIET_RATES.presence.map((p) => p - 0.1) };
  api = await startSimulatedApi(
    [
      ...QUIET.map((id) => ({ id, runs: [QUIET_RATES, QUIET_RATES], seed: id })),
      // 120 queries × 5 engines = 600 answers a run.
      { id: FALLEN, runs: [QUIET_RATES, fallen], queries: [6, 14, 18, 22, 28, 32], seed: FALLEN },
    ],
    sandbox,
  );
  config = join(tmp.dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - { name: acme, base_url: "${api.baseUrl}", api_key: k, api_secret: s, rate_limit: { requests: 100000 } }
store: { path: ./store.sqlite }
sync: { query_sets: all, backfill_runs: 2 }
log: { level: warn }
`,
  );
}, 60_000);

afterAll(async () => {
  await api?.close();
  await sandbox?.close();
  tmp?.cleanup();
});

function readCsv(file: string): Record<string, string>[] {
  const script =
    'import csv, json, sys\n' +
    "print(json.dumps(list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8')))))";
  return JSON.parse(execFileSync('python3', ['-c', script, file], { maxBuffer: 1 << 28 }).toString());
}

describe('the export of runs drawn from known rates', () => {
  it('marks a likely change in at most one of ten quiet sets, and the true 10-point fall as likely', async () => {
    const sync = await runCli(['sync', '--config', config, '--no-progress'], { cwd: tmp.dir });
    expect(sync.code, sync.stderr).toBe(0);
    const out = join(tmp.dir, 'export');
    const exported = await runCli(['export', '--config', config, '--format', 'csv', '--out', out], {
      cwd: tmp.dir,
    });
    expect(exported.code, exported.stderr).toBe(0);
    const changes = readCsv(join(out, 'metric_changes.csv'));
    const ofSet = (id: number) => changes.filter((c) => c.query_set_id === String(id));
    for (const id of [...QUIET, FALLEN]) expect(ofSet(id).length, `set ${id}`).toBeGreaterThan(50);

    const judged = ofSet(QUIET[0]!).filter((c) => c.significance !== 'unknown');
    const likelyIn = QUIET.filter((id) => ofSet(id).some((c) => c.significance === 'likely'));
    console.log(
      `export families: ${judged.length} changes judged per run (family size ${judged[0]?.family_size}); ` +
        `quiet sets with a likely change: ${likelyIn.length} of ${QUIET.length}`,
    );
    expect(likelyIn.length).toBeLessThanOrEqual(1);

    const gross = ofSet(FALLEN).find((c) => c.endpoint === 'presence.gross' && c.field === 'current')!;
    expect(gross).toMatchObject({ significance: 'likely', n_after: '600', n_before: '600' });
    expect(Number(gross.change)).toBeLessThan(-5);
    expect(Number(gross.interval_high)).toBeLessThan(0);
    expect(Number(gross.q)).toBeLessThanOrEqual(0.05);
  }, 300_000);
});
