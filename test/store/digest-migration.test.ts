import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coveredBefore, enqueueDigest } from '../../src/outbox/digest-rows.js';
import { enqueueDelivery } from '../../src/outbox/enqueue.js';
import { listDeliveries } from '../../src/outbox/reads.js';
import { openStore } from '../../src/store/db.js';
import { migrations } from '../../src/store/migrations/index.js';
import { openSqliteDatabase } from '../../src/store/sqlite-addon.js';
import { tempDir } from '../delivery/smtp-helpers.js';
import { testEngine } from '../helpers/test-store.js';

/**
 * Migration 13 on a store written by the previous release: its per-set outbox rows keep every column
 * (so nothing sent is sent again, no Message-ID changes), and they count as "already emailed" for
 * the digest that follows.
 */
let tmp: ReturnType<typeof tempDir> | undefined;
afterEach(() => tmp?.cleanup());

describe('migration 13 (digest covers)', () => {
  it.skipIf(testEngine() === 'postgres')(
    'leaves existing per-set rows unchanged and counts them as delivered (SQLite: an upgrade of an older file)',
    async () => {
      tmp = tempDir();
      const path = join(tmp.dir, 'reportd.sqlite');
      const before = await openStore(path, { migrations: migrations.filter((m) => m.version < 13) });
      await enqueueDelivery(before, { report: 'weekly', querySetId: 101, runId: 7, account: 'acme' }, 1000);
      await enqueueDelivery(before, { report: 'weekly', querySetId: 102, runId: 8, account: 'acme' }, 1000);
      await before.run(`UPDATE deliveries SET state = 'sent', sent_at = 2000 WHERE query_set_id = 101`);
      await before.run(
        `INSERT INTO delivery_recipients (delivery_id, recipient, state, updated_at) VALUES (1, 'a@x', 'accepted', 2000)`,
      );
      const rowsBefore = await before.all('SELECT * FROM deliveries ORDER BY id');
      await before.close();

      const after = await openStore(path);
      const raw = openSqliteDatabase(path, { readonly: true });
      try {
        const rowsAfter = raw.prepare('SELECT * FROM deliveries ORDER BY id').all() as Record<
          string,
          unknown
        >[];
        // covers (this migration) and token (migration 20, the fencing token) are new columns.
        expect(rowsAfter.map(({ covers, token, ...rest }) => rest)).toEqual(rowsBefore);
        expect(rowsAfter.map((r) => r.covers)).toEqual([null, null]);
        expect(raw.prepare('SELECT COUNT(*) FROM delivery_recipients').pluck().get()).toBe(1);

        // Both runs were already put in the outbox per set: a digest of exactly them is not news.
        expect([...(await coveredBefore(after, 'weekly'))].sort()).toEqual(['101:7', '102:8']);
        const runs = [
          { account: 'acme', querySetId: 102, runId: 8 },
          { account: 'acme', querySetId: 101, runId: 9 },
        ];
        const first = await enqueueDigest(after, 'weekly', runs, 3000);
        expect(first.created).toBe(true);
        expect(first.delivery).toMatchObject({ querySetId: 0, runId: 1, generation: 0 });
        // The same runs in another order are the same digest; a forced one is the next generation.
        expect((await enqueueDigest(after, 'weekly', [...runs].reverse(), 3000)).created).toBe(false);
        const forced = await enqueueDigest(after, 'weekly', runs, 3000, { force: true });
        expect(forced.delivery).toMatchObject({ runId: 1, generation: 1 });
        expect(forced.delivery.messageId).not.toBe(first.delivery.messageId);
        const other = await enqueueDigest(
          after,
          'weekly',
          [{ account: 'acme', querySetId: 101, runId: 10 }, runs[0]!],
          3000,
        );
        expect(other.delivery).toMatchObject({ runId: 2, generation: 0 });
        expect(await listDeliveries(after, 10)).toHaveLength(5);
      } finally {
        raw.close();
        await after.close();
      }
    },
  );
});
