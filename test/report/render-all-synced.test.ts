import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { openSqliteDatabase } from '../../src/store/sqlite-addon.js';
import { chromiumProcessesWith } from '../helpers/chromium-processes.js';
import { type CliResult, runCli } from '../helpers/cli.js';

/**
 * The README's bulk render on a store filled the real way: `reportd sync` against the sandbox over
 * HTTP, then `reportd render --set all --run all` as a separate process.
 */
describe('reportd render --set all --run all on a synced store', () => {
  let dir: string;
  let sandbox: Sandbox;
  let config: string;
  let sync: CliResult;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'reportd-render-all-'));
    sandbox = await startSandbox({ port: 0 });
    config = join(dir, 'reportd.yaml');
    writeFileSync(
      config,
      [
        'accounts:',
        '  - name: sandbox',
        `    base_url: ${sandbox.baseUrl}`,
        `    api_key: ${sandbox.apiKey}`,
        `    api_secret: ${sandbox.apiSecret}`,
        'store:',
        '  path: ./store.sqlite',
        'sync:',
        '  backfill_runs: 2',
        'output:',
        '  dir: ./reports',
        '',
      ].join('\n'),
    );
    sync = await runCli(['sync', '--config', config]);
  }, 240_000);

  afterAll(async () => {
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes every complete snapshot's PDF exactly once and prints each path", async () => {
    expect(sync.code).toBe(0);
    // What the store holds, read with plain SQL: one document per complete (or settled) snapshot.
    const db = openSqliteDatabase(join(dir, 'store.sqlite'), { readonly: true });
    const stored = db
      .prepare(
        `SELECT s.query_set_id AS setId, q.name AS setName, r.display_name AS run FROM snapshots s
         JOIN runs r ON r.account = s.account AND r.query_set_id = s.query_set_id AND r.id = s.run_id
         JOIN query_sets q ON q.account = s.account AND q.id = s.query_set_id
         WHERE s.state = 'complete' OR s.settled_at IS NOT NULL`,
      )
      .all() as { setId: number; setName: string; run: string }[];
    db.close();
    expect(stored.length).toBeGreaterThanOrEqual(4);

    const marker = randomUUID();
    const out = join(dir, 'all');
    const run = await runCli(['render', '--config', config, '--set', 'all', '--run', 'all', '--out', out], {
      env: { REPORTD_TEST_MARKER: marker },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const paths = run.stdout.trim().split('\n');
    // One PDF per stored snapshot (the default format), no path twice, nothing else in the folder.
    expect(paths).toHaveLength(stored.length);
    expect(new Set(paths).size).toBe(paths.length);
    expect(readdirSync(out).sort()).toEqual(paths.map((path) => basename(path)).sort());
    for (const path of paths) {
      expect(path.startsWith(out)).toBe(true);
      expect(path.endsWith('.pdf')).toBe(true);
      expect(statSync(path).size).toBeGreaterThan(10_000);
    }
    // Each snapshot's own document: its cover (page 1, which shows no other run) names its set and
    // run in exactly one of the files, and the files come set by set in id order.
    const covers = paths.map((path) =>
      execFileSync('pdftotext', ['-l', '1', path, '-'], { encoding: 'utf8' }),
    );
    const flat = (text: string) => text.replace(/\s+/g, ' ');
    const owners = stored.map(({ setName, run: label }) =>
      covers.flatMap((cover, i) =>
        flat(cover).includes(flat(setName)) && flat(cover).includes(flat(label)) ? [i] : [],
      ),
    );
    for (const owner of owners) expect(owner).toHaveLength(1);
    expect(new Set(owners.flat()).size).toBe(paths.length);
    const setOrder = paths.map((_, i) => stored[owners.findIndex((owner) => owner[0] === i)]?.setId ?? 0);
    expect(setOrder).toEqual([...setOrder].sort((x, y) => x - y));
    expect(chromiumProcessesWith(marker)).toEqual([]);
  }, 300_000);
});
