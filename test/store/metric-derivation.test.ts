import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricEndpoints } from '../../src/api/endpoints.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { openStore } from '../../src/store/db.js';
import { ensureSnapshot, savePayload } from '../../src/store/payloads.js';
import type { Store } from '../../src/store/sql.js';
import { copySnapshots } from '../helpers/synth-snapshots.js';
import { testEngine } from '../helpers/test-store.js';
import { sandboxSnapshot } from '../report/sandbox-snapshot.js';
import { seedCatalog } from '../sync/helpers/seed-catalog.js';
import { tempStore } from '../sync/helpers/temp-store.js';

/**
 * When rows appear: with the payload that completes a snapshot (never for a partial one), and whole
 * or not at all when a process dies while deriving.
 */

let sandbox: Sandbox;
let payloads: Record<string, { data: unknown; error: string | null }>;
beforeAll(async () => {
  sandbox = await startSandbox({ rate: { requests: 10_000, windowMs: 60_000 } });
  payloads = (await sandboxSnapshot(sandbox, 101, { id: 1, name: 'Northwind Coffee' })).payloads;
});
afterAll(() => sandbox.close());

const CHILD = fileURLToPath(new URL('./fixtures/backfill-child.ts', import.meta.url));
async function count(store: Store, table: string, snapshotId?: number): Promise<number> {
  const row = await store.get<{ n: number }>(
    `SELECT COUNT(*) AS n FROM ${table}${snapshotId === undefined ? '' : ' WHERE snapshot_id = ?'}`,
    snapshotId === undefined ? [] : [snapshotId],
  );
  return Number(row?.n);
}

describe('metric derivation', () => {
  it('gives a partial snapshot no rows until its last payload completes it', async () => {
    const temp = await tempStore();
    try {
      const { store } = temp;
      await seedCatalog(store, 1);
      const { id } = await ensureSnapshot(store, { account: 'acme', querySetId: 101, runId: 1 }, 0);
      const [last, ...rest] = metricEndpoints.map((endpoint) => endpoint.key);
      for (const key of rest) {
        expect(
          await savePayload(store, id, key, { data: payloads[key]!.data, validationError: null }, 0),
        ).toBe('pending');
      }
      expect(await count(store, 'metric_values')).toBe(0);
      // An invalid payload for the last endpoint: partial, still nothing derived.
      expect(
        await savePayload(store, id, last!, { data: { nope: 1 }, validationError: 'current: required' }, 0),
      ).toBe('partial');
      expect(await count(store, 'metric_values')).toBe(0);
      expect(await count(store, 'metric_derivations')).toBe(0);
      // Opening the store again does not backfill a partial snapshot either.
      await store.close();
      const reopened = await openStore(temp.target);
      expect(await count(reopened, 'metric_values')).toBe(0);
      const state = await savePayload(
        reopened,
        id,
        last!,
        { data: payloads[last!]!.data, validationError: null },
        0,
      );
      expect(state).toBe('complete');
      expect(await count(reopened, 'metric_values', id)).toBeGreaterThan(500);
      expect(await count(reopened, 'metric_error_register', id)).toBeGreaterThan(0);
      expect(await count(reopened, 'metric_summaries', id)).toBe(1);
      expect(await count(reopened, 'metric_sources', id)).toBeGreaterThan(0);
      await reopened.close();
    } finally {
      await temp.cleanup();
    }
  });

  it('leaves each snapshot with all its rows or none when the deriving process is killed -9', async () => {
    const temp = await tempStore();
    try {
      const { store } = temp;
      await seedCatalog(store, 1);
      const { id } = await ensureSnapshot(store, { account: 'acme', querySetId: 101, runId: 1 }, 0);
      for (const key of metricEndpoints.map((endpoint) => endpoint.key)) {
        await savePayload(store, id, key, { data: payloads[key]!.data, validationError: null }, 0);
      }
      const perSnapshot = await count(store, 'metric_values', id);
      // Enough that the kill lands part-way; PostgreSQL derives slower (a round trip per statement).
      const copies = await copySnapshots(store, id, testEngine() === 'postgres' ? 40 : 300);
      await store.close();

      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, temp.path], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let derived = 0;
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.on('close', (_, signal) => resolve(signal)),
      );
      child.stdout.on('data', (chunk: Buffer) => {
        derived += chunk
          .toString()
          .split('\n')
          .filter((line) => line.startsWith('derived')).length;
        if (derived >= 5) child.kill('SIGKILL');
      });
      expect(await exited, stderr).toBe('SIGKILL');

      const after = await openStore(temp.target, { deriveMetrics: false });
      const marked = new Set(
        (await after.all<{ id: number }>('SELECT snapshot_id AS id FROM metric_derivations')).map((row) =>
          Number(row.id),
        ),
      );
      expect(marked.size).toBeGreaterThanOrEqual(5);
      expect(marked.size, 'the kill came after the whole backfill').toBeLessThan(copies.length);
      for (const copy of copies) {
        const rows = await count(after, 'metric_values', copy);
        const text =
          (await count(after, 'metric_error_register', copy)) + (await count(after, 'metric_sources', copy));
        if (marked.has(copy)) {
          expect(rows).toBe(perSnapshot);
          expect(text).toBeGreaterThan(0);
        } else {
          expect(rows + text, `snapshot ${copy} has a half set`).toBe(0);
        }
      }
      await after.close();
      // The next open derives the rest, once.
      const reopened = await openStore(temp.target);
      expect(await count(reopened, 'metric_derivations')).toBe(copies.length + 1);
      expect(await count(reopened, 'metric_values')).toBe(perSnapshot * (copies.length + 1));
      await reopened.close();
    } finally {
      await temp.cleanup();
    }
  }, 120_000);

  it('derives each snapshot once when two processes backfill the same store at the same time', async () => {
    const temp = await tempStore();
    try {
      const { store } = temp;
      await seedCatalog(store, 1);
      const { id } = await ensureSnapshot(store, { account: 'acme', querySetId: 101, runId: 1 }, 0);
      for (const key of metricEndpoints.map((endpoint) => endpoint.key)) {
        await savePayload(store, id, key, { data: payloads[key]!.data, validationError: null }, 0);
      }
      const perSnapshot = await count(store, 'metric_values', id);
      const copies = await copySnapshots(store, id, 60);
      await store.close();
      const startAt = String(Date.now() + 3000);
      const run = () =>
        new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, ['--import', 'tsx', CHILD, temp.path, startAt], {
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (chunk) => {
            stdout += chunk;
          });
          child.stderr.on('data', (chunk) => {
            stderr += chunk;
          });
          child.on('close', (code) => resolve({ code, stdout, stderr }));
        });
      const results = await Promise.all([run(), run()]);
      for (const result of results) expect(result.code, result.stderr).toBe(0);
      // Each snapshot derived by one of the two, never both (nor by neither).
      const derivedBy = results.flatMap((result) =>
        result.stdout.split('\n').filter((line) => line.startsWith('derived ')),
      );
      expect(derivedBy.sort()).toEqual(copies.map((copy) => `derived ${copy}`).sort());
      const after = await openStore(temp.target, { deriveMetrics: false });
      expect(await count(after, 'metric_derivations')).toBe(copies.length + 1);
      expect(await count(after, 'metric_values')).toBe(perSnapshot * (copies.length + 1));
      const claims = await count(after, 'metric_error_register', id);
      for (const copy of copies) expect(await count(after, 'metric_error_register', copy)).toBe(claims);
      await after.close();
    } finally {
      await temp.cleanup();
    }
  }, 60_000);
});
