import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { tempDir } from '../delivery/smtp-helpers.js';
import { runCli } from '../helpers/cli.js';

/**
 * The export judges each run's changes as one family, end to end, on the sandbox's quiet world
 * (`quiet: true`: every run an independent draw of answers from rates that never drift): ten panel
 * sets (301…310) publish two runs each from the same rates, `reportd sync` stores them over HTTP and
 * `reportd export` writes `metric_changes`. At most one of the ten may show a likely change. Then set
 * 301 publishes a true −10-point fall of gross presence on 600 answers, which must be a likely one.
 */

const PANEL = Array.from({ length: 10 }, (_, i) => 301 + i);
const FALLEN = PANEL[0]!;

let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let config: string;

beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox({
    quiet: true,
    extraSets: PANEL.length,
    rate: { requests: 100_000, windowMs: 60_000 },
  });
  config = join(tmp.dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - { name: acme, base_url: "${sandbox.baseUrl}", api_key: ${sandbox.apiKey}, api_secret: ${sandbox.apiSecret}, rate_limit: { requests: 100000 } }
store: { path: ./store.sqlite }
sync: { query_sets: [${PANEL.join(', ')}], backfill_runs: 2 }
log: { level: warn }
`,
  );
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  tmp?.cleanup();
});

function readCsv(file: string): Record<string, string>[] {
  const script =
    'import csv, json, sys\n' +
    "print(json.dumps(list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8')))))";
  return JSON.parse(execFileSync('python3', ['-c', script, file], { maxBuffer: 1 << 28 }).toString());
}

/** Syncs what the sandbox has published, exports it as CSV and returns `metric_changes`. */
async function syncAndExport(name: string): Promise<Record<string, string>[]> {
  const sync = await runCli(['sync', '--config', config, '--no-progress'], { cwd: tmp.dir });
  expect(sync.code, sync.stderr).toBe(0);
  const out = join(tmp.dir, name);
  const exported = await runCli(['export', '--config', config, '--format', 'csv', '--out', out], {
    cwd: tmp.dir,
  });
  expect(exported.code, exported.stderr).toBe(0);
  return readCsv(join(out, 'metric_changes.csv'));
}

describe('the export of runs drawn from known rates (the sandbox quiet world)', () => {
  it('marks a likely change in at most one of ten quiet sets, and a true 10-point fall as likely', async () => {
    const quiet = await syncAndExport('quiet');
    const ofSet = (rows: Record<string, string>[], id: number) =>
      rows.filter((c) => c.query_set_id === String(id));
    for (const id of PANEL) expect(ofSet(quiet, id).length, `set ${id}`).toBeGreaterThan(50);

    const judged = ofSet(quiet, PANEL[0]!).filter((c) => c.significance !== 'unknown');
    const likelyIn = PANEL.filter((id) => ofSet(quiet, id).some((c) => c.significance === 'likely'));
    console.log(
      `export families: ${judged.length} judged rows in a run (family sizes ${[...new Set(judged.map((c) => c.family_size))].join(' and ')}; a figure sent twice is one member); ` +
        `quiet sets with a likely change: ${likelyIn.length} of ${PANEL.length}`,
    );
    expect(judged.length).toBeGreaterThan(10);
    expect(likelyIn.length).toBeLessThanOrEqual(1);

    sandbox.publishRun(FALLEN, { grossChange: -10, answers: 600 });
    const fallen = ofSet(await syncAndExport('fallen'), FALLEN);
    const latest = Math.max(...fallen.map((c) => Number(c.run_id)));
    const gross = fallen.find(
      (c) => Number(c.run_id) === latest && c.endpoint === 'presence.gross' && c.field === 'current',
    )!;
    expect(gross).toMatchObject({ significance: 'likely', n_after: '600' });
    expect(Number(gross.n_before)).toBeGreaterThanOrEqual(600);
    expect(Number(gross.change)).toBeLessThanOrEqual(-10);
    expect(Number(gross.interval_high)).toBeLessThan(0);
    expect(Number(gross.q)).toBeLessThanOrEqual(0.05);
  }, 300_000);
});
