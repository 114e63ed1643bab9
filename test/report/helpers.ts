import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { metricEndpoints } from '../../src/api/endpoints.js';
import type { ReportSnapshot } from '../../src/report/model/snapshot.js';
import { saveBrands, upsertAccount } from '../../src/store/accounts.js';
import { openStore } from '../../src/store/db.js';
import { ensureSnapshot, savePayload } from '../../src/store/payloads.js';
import { saveDetails, saveQuerySets, saveRuns } from '../../src/store/query-sets.js';

/** Text of a PDF as an independent reader (poppler) sees it, whitespace collapsed. */
export function pdfText(file: string): string {
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
}

export function pdfTextOf(bytes: Buffer, dir: string): string {
  const file = `${dir}/probe-${process.pid}-${Date.now()}.pdf`;
  writeFileSync(file, bytes);
  return pdfText(file);
}

/**
 * A config for a store seeded by `seedStore` (`./store.sqlite` beside it) whose account is never
 * reached, with `extra` lines after it.
 */
export function seededStoreConfig(...extra: string[]): string {
  return [
    'accounts:',
    '  - name: main',
    '    base_url: http://127.0.0.1:1/v2/integration',
    '    api_key: key',
    '    api_secret: secret-value',
    'store:',
    '  path: ./store.sqlite',
    ...extra,
    '',
  ].join('\n');
}

/** Stores snapshots through the store's own write API, as a sync would. */
export async function seedStore(path: string, snapshots: readonly ReportSnapshot[]): Promise<void> {
  const store = await openStore(path);
  const at = Date.UTC(2026, 10, 16);
  try {
    for (const snapshot of snapshots) {
      await upsertAccount(store, {
        name: snapshot.account,
        baseUrl: 'http://127.0.0.1:1/v2/integration',
        budgetKey: 'k',
      });
      await saveBrands(store, snapshot.account, [snapshot.brand], at);
      await saveQuerySets(
        store,
        snapshot.account,
        snapshot.brand.id,
        [{ id: snapshot.querySet.id, name: snapshot.querySet.name, created_at: '2026-01-05T09:00:00+01:00' }],
        at,
      );
      await saveDetails(
        store,
        snapshot.account,
        snapshot.querySet.id,
        snapshot.querySet.details as never,
        at,
      );
      await saveRuns(store, snapshot.account, snapshot.querySet.id, [snapshot.run], at);
      const { id } = await ensureSnapshot(
        store,
        { account: snapshot.account, querySetId: snapshot.querySet.id, runId: snapshot.run.id },
        at,
      );
      for (const endpoint of metricEndpoints) {
        const payload = snapshot.payloads[endpoint.key];
        if (payload)
          await savePayload(
            store,
            id,
            endpoint.key,
            { data: payload.data, validationError: payload.error },
            at,
          );
      }
    }
  } finally {
    await store.close();
  }
}

export { chromiumProcessesWith } from '../helpers/chromium-processes.js';
