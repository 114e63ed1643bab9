import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { printable } from '../../src/printable.js';
import { recordAccountPass, saveBrands, upsertAccount } from '../../src/store/accounts.js';
import { saveDetails, saveQuerySets, saveRuns, setQuerySetError } from '../../src/store/query-sets.js';
import { finishSyncRun, startSyncRun } from '../../src/store/sync-runs.js';
import { runCli } from '../helpers/cli.js';
import { tempStore } from '../sync/helpers/temp-store.js';

const ESC = '\u001b';
const CLEAR = `${ESC}[2J`;

describe('printable', () => {
  it('replaces C0, DEL and C1 controls with U+FFFD and keeps tab and ordinary text', () => {
    expect(printable(`a${CLEAR}b`)).toBe('a\uFFFD[2Jb');
    expect(printable('x\u009b31my\u007f\u0000\r')).toBe('x\uFFFD31my\uFFFD\uFFFD\uFFFD');
    expect(printable('tab\there · Woche 12 — ünï')).toBe('tab\there · Woche 12 — ünï');
  });

  it('replaces bidi overrides and isolates, which would show a name in another order', () => {
    expect(printable('invoice\u202Efdp.exe \u2066x\u2069 \u202Ay')).toBe(
      'invoice\uFFFDfdp.exe \uFFFDx\uFFFD \uFFFDy',
    );
  });

  it('keeps newlines only for messages meant to span lines', () => {
    expect(printable('one\ntwo')).toBe('one\uFFFDtwo');
    expect(printable(`one\n  two${ESC}]0;title\u0007`, { multiline: true })).toBe(
      'one\n  two\uFFFD]0;title\uFFFD',
    );
  });
});

describe('status and history with hostile API names and stored errors', () => {
  let temp: Awaited<ReturnType<typeof tempStore>> | undefined;
  afterEach(async () => {
    await temp?.cleanup();
  });

  it('print no escape sequence', async () => {
    temp = await tempStore();
    const { store } = temp;
    const at = Date.UTC(2026, 0, 1);
    // What a hostile API could have put in the store: names and labels, and errors quoting them.
    await upsertAccount(store, {
      name: 'acme',
      baseUrl: 'http://127.0.0.1:1/v2/integration',
      budgetKey: 'k@h',
    });
    await saveBrands(store, 'acme', [{ id: 1, name: 'Brand' }], at);
    await saveQuerySets(
      store,
      'acme',
      1,
      [{ id: 101, name: `Main${CLEAR}`, created_at: '2025-01-01T00:00:00Z' }],
      at,
    );
    await saveDetails(store, 'acme', 101, { query_set_name: `Main${CLEAR}set`, engines: [] }, at);
    await saveRuns(
      store,
      'acme',
      101,
      [{ id: 1, display_name: `Run${ESC}]0;pwned\u0007`, created_at: '2025-01-01T00:00:00Z' }],
      at,
    );
    await setQuerySetError(store, 'acme', 101, `bad payload ${CLEAR}`);
    await recordAccountPass(store, 'acme', at, `server said ${ESC}[1A${ESC}[2Kall good\nfake line`);
    await finishSyncRun(store, await startSyncRun(store, at), {
      at,
      outcome: 'failed',
      requests: 1,
      metricRequests: 0,
      snapshotsCompleted: 0,
      error: `sync broke ${CLEAR}`,
    });
    const config = join(temp.dir, 'reportd.yaml');
    writeFileSync(
      config,
      `accounts:
  - name: acme
    base_url: http://127.0.0.1:1/v2/integration
    api_key: k
    api_secret: secret-value
store: { path: ${temp.path} }
sync: { query_sets: all, backfill_runs: 1 }
`,
    );

    const status = await runCli(['status', '--config', config]);
    expect(status.code).toBe(0);
    expect(status.stdout).not.toContain(ESC);
    expect(status.stdout).not.toContain('\u0007');
    expect(status.stdout).toContain('last sync');
    expect(status.stdout).toContain('sync broke \uFFFD[2J');
    expect(status.stdout).toContain('Main\uFFFD[2Jset');
    expect(status.stdout).toContain('last error: server said \uFFFD[1A\uFFFD[2Kall good\uFFFDfake line');
    // JSON keeps the exact text, escaped by JSON itself.
    const json = await runCli(['status', '--config', config, '--json']);
    expect(json.stdout).not.toContain(ESC);
    expect(JSON.parse(json.stdout).accounts[0].sets[0].name).toBe(`Main${CLEAR}set`);

    const history = await runCli(['history', '--config', config]);
    expect(history.code).toBe(0);
    expect(history.stdout).toContain('sync broke \uFFFD[2J');
    expect(history.stdout).not.toContain(ESC);

    // An error message quoting untrusted text (here the command line) reaches stderr as one line.
    const failed = await runCli(['deliver', '--report', `weekly\nreportd: ok${CLEAR}`, '--config', config]);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/^reportd: no report named "weekly\uFFFDreportd: ok\uFFFD\[2J"[^\n]*\n$/);
  });
});
