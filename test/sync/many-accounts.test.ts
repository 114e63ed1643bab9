import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { companyCredentials } from '../../src/sandbox/dataset/companies.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { runCli } from './helpers/cli.js';
import { type TempStore, tempStore } from './helpers/temp-store.js';

/**
 * `reportd sync` over more accounts than Node's default listener limit (10), each a company of a
 * multi-company sandbox with its own key, as an agency runs it: stderr carries no
 * MaxListenersExceededWarning (one abort listener per account on the pass's signal did), and the first
 * progress line already counts every account's payloads (it used to count those of the accounts that
 * had planned first, then jump).
 */
describe('one sync process, many accounts', () => {
  let sandbox: Sandbox;
  let temp: TempStore;
  afterEach(async () => {
    await sandbox?.close();
    await temp?.cleanup();
  });

  it('warns of no listener leak and prints the full totals from the first progress line', async () => {
    const accounts = 12;
    const rate = { requests: 200, windowMs: 1000 };
    sandbox = await startSandbox({ companies: accounts, rate });
    temp = await tempStore();
    const lines = ['accounts:'];
    for (let company = 1; company <= accounts; company++) {
      const { apiKey, apiSecret } = companyCredentials(company, sandbox);
      lines.push(
        `  - name: company-${company}`,
        `    base_url: ${sandbox.baseUrl}`,
        `    api_key: ${apiKey}`,
        `    api_secret: ${apiSecret}`,
        `    rate_limit: { requests: ${rate.requests}, window_seconds: 1 }`,
        '    concurrency: 4',
      );
    }
    lines.push(temp.configLine, 'sync: { query_sets: all, backfill_runs: 1 }', 'log: { level: warn }', '');
    const file = join(temp.dir, 'reportd.yaml');
    writeFileSync(file, lines.join('\n'));

    const result = await runCli(['sync', '--config', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/MaxListenersExceededWarning|memory leak/);
    const totals = [...result.stderr.matchAll(/^sync: \d+\/(\d+) snapshots, \d+\/(\d+) payloads/gm)].map(
      (match) => `${match[1]}/${match[2]}`,
    );
    expect(totals.length).toBeGreaterThan(1);
    // Every company has 3 sets, 1 run each to backfill, 34 metric payloads per snapshot.
    expect(totals[0]).toBe(`${accounts * 3}/${accounts * 3 * 34}`);
    expect(new Set(totals).size).toBe(1);
  }, 240_000);
});
