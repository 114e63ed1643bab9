import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { openSqliteDatabase } from '../../src/store/sqlite-addon.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { runCli } from '../helpers/cli.js';

/**
 * End to end over HTTP: one set's gross presence moves 2 points on 600 answers, another's drops 12
 * points on 600 answers. The default change rule fires for the second only, and its email names
 * "Gross presence" with the verdict, the interval and n; a rule with `significant: false` fires for
 * both (so it is the noise model that keeps the first quiet); the export marks the first change no
 * clear change and the second a likely one.
 */

let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let smtp: TestSmtp;
let config: string;
beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox({ rate: { requests: 100_000, windowMs: 60_000 } });
  smtp = await startSmtp();
  config = join(tmp.dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - { name: acme, base_url: "${sandbox.baseUrl}", api_key: ${sandbox.apiKey}, api_secret: ${sandbox.apiSecret}, rate_limit: { requests: 100000 } }
store: { path: ./store.sqlite }
sync: { query_sets: [101, 102], backfill_runs: 1 }
smtp: { url: "${smtp.url}", from: "reportd <alerts@example.com>" }
alerts:
  - name: presence-drop
    rules:
      - { metric: presence.gross, change: "<= -2" }
    email: { to: [cmo@example.com] }
  - name: presence-drop-any
    rules:
      - { metric: presence.gross, change: "<= -2", significant: false }
    email: { to: [analyst@example.com] }
`,
  );
});
afterAll(async () => {
  await sandbox?.close();
  await smtp?.close();
  tmp?.cleanup();
});

const queued = () => {
  const db = openSqliteDatabase(join(tmp.dir, 'store.sqlite'), { readonly: true });
  try {
    return db
      .prepare(
        `SELECT report, query_set_id FROM deliveries WHERE kind = 'alert' ORDER BY report, query_set_id`,
      )
      .all() as { report: string; query_set_id: number }[];
  } finally {
    db.close();
  }
};

function readCsv(file: string): { header: string[]; rows: string[][] } {
  const script =
    'import csv, json, sys\n' +
    "rows = list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))\n" +
    "print(json.dumps({'header': rows[0], 'rows': rows[1:]}))";
  return JSON.parse(execFileSync('python3', ['-c', script, file], { maxBuffer: 1 << 28 }).toString());
}

describe('changes with no clear change and likely ones', () => {
  it('a 2-point move on 600 answers is no clear change and fires no default alert; a 12-point drop is likely and fires', async () => {
    expect((await runCli(['sync', '--config', config, '--no-progress'])).code).toBe(0);
    sandbox.publishRun(102, { grossChange: -2, answers: 600 });
    sandbox.publishRun(101, { grossChange: -12, answers: 600 });
    const pass = await runCli(['sync', '--config', config, '--no-progress']);
    expect(pass.code).toBe(0);
    expect(queued()).toEqual([
      { report: 'presence-drop', query_set_id: 101 },
      { report: 'presence-drop-any', query_set_id: 101 },
      { report: 'presence-drop-any', query_set_id: 102 },
    ]);

    const sent = await runCli(['deliver', '--config', config, '--pending']);
    expect(sent.code).toBe(0);
    const cmo = smtp.messages.filter((m) => JSON.stringify(m.to).includes('cmo@example.com'));
    expect(cmo).toHaveLength(1);
    const text = cmo[0]!.text ?? '';
    expect(text).toMatch(
      /Gross presence changed −12\.0 pts against the previous run \(likely change, p = [\d.e-]+; interval −\d+\.\d to −\d+\.\d pts at 98 %; n = [\d,]+ → 600 answers\)/,
    );
    for (const message of smtp.messages) {
      expect(message.text).not.toMatch(/presence\.gross|\.current\b/);
      expect(String(message.html)).not.toMatch(/presence\.gross|\.current\b/);
    }
    // The loose rule fired on the 2-point move too, and says it is no clear change.
    const loose = smtp.messages.find(
      (m) => JSON.stringify(m.to).includes('analyst@example.com') && (m.text ?? '').includes('−2.0 pts'),
    );
    expect(loose?.text).toMatch(/\(no clear change, p = [\d.]+; interval −\d+\.\d to \+\d+\.\d pts at 98 %/);

    const dir = join(tmp.dir, 'export');
    expect((await runCli(['export', '--config', config, '--format', 'csv', '--out', dir])).code).toBe(0);
    const changes = readCsv(join(dir, 'metric_changes.csv'));
    const at = (name: string) => changes.header.indexOf(name);
    const gross = (set: number) =>
      changes.rows.find(
        (r) => r[at('endpoint')] === 'presence.gross' && r[at('query_set_id')] === String(set),
      )!;
    expect(gross(102)[at('significance')]).toBe('unclear');
    expect(Number(gross(102)[at('change')])).toBeCloseTo(-2, 6);
    expect(gross(102)[at('n_after')]).toBe('600');
    expect(gross(101)[at('significance')]).toBe('likely');
    expect(Number(gross(101)[at('interval_high')])).toBeLessThan(0);
  }, 240_000);
});
