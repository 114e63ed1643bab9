import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricEndpoints } from '../../src/api/endpoints.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { openStore } from '../../src/store/db.js';
import { ensureSnapshot, savePayload } from '../../src/store/payloads.js';
import { copySnapshots } from '../helpers/synth-snapshots.js';
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
const count = (store: { db: import('better-sqlite3').Database }, table: string, snapshotId?: number) =>
  store.db
    .prepare(`SELECT COUNT(*) FROM ${table}${snapshotId === undefined ? '' : ' WHERE snapshot_id = ?'}`)
    .pluck()
    .get(...(snapshotId === undefined ? [] : [snapshotId])) as number;

describe('metric derivation', () => {
  it('gives a partial snapshot no rows until its last payload completes it', () => {
    const temp = tempStore();
    try {
      const { store } = temp;
      seedCatalog(store, 1);
      const { id } = ensureSnapshot(store, { account: 'acme', querySetId: 101, runId: 1 }, 0);
      const [last, ...rest] = metricEndpoints.map((endpoint) => endpoint.key);
      for (const key of rest) {
        expect(savePayload(store, id, key, { data: payloads[key]!.data, validationError: null }, 0)).toBe(
          'pending',
        );
      }
      expect(count(store, 'metric_values')).toBe(0);
      // An invalid payload for the last endpoint: partial, still nothing derived.
      expect(
        savePayload(store, id, last!, { data: { nope: 1 }, validationError: 'current: required' }, 0),
      ).toBe('partial');
      expect(count(store, 'metric_values')).toBe(0);
      expect(count(store, 'metric_derivations')).toBe(0);
      // Opening the store again does not backfill a partial snapshot either.
      store.close();
      const reopened = openStore(temp.path);
      expect(count(reopened, 'metric_values')).toBe(0);
      const state = savePayload(
        reopened,
        id,
        last!,
        { data: payloads[last!]!.data, validationError: null },
        0,
      );
      expect(state).toBe('complete');
      expect(count(reopened, 'metric_values', id)).toBeGreaterThan(500);
      expect(count(reopened, 'metric_error_register', id)).toBeGreaterThan(0);
      expect(count(reopened, 'metric_summaries', id)).toBe(1);
      expect(count(reopened, 'metric_sources', id)).toBeGreaterThan(0);
      reopened.close();
    } finally {
      temp.cleanup();
    }
  });

  it('leaves each snapshot with all its rows or none when the deriving process is killed -9', async () => {
    const temp = tempStore();
    try {
      const { store } = temp;
      seedCatalog(store, 1);
      const { id } = ensureSnapshot(store, { account: 'acme', querySetId: 101, runId: 1 }, 0);
      for (const key of metricEndpoints.map((endpoint) => endpoint.key)) {
        savePayload(store, id, key, { data: payloads[key]!.data, validationError: null }, 0);
      }
      const perSnapshot = count(store, 'metric_values', id);
      const copies = copySnapshots(store, id, 300);
      store.close();

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

      const after = openStore(temp.path, { deriveMetrics: false });
      const marked = new Set(after.db.prepare('SELECT snapshot_id FROM metric_derivations').pluck().all());
      expect(marked.size).toBeGreaterThanOrEqual(5);
      expect(marked.size, 'the kill came after the whole backfill').toBeLessThan(copies.length);
      for (const copy of copies) {
        const rows = count(after, 'metric_values', copy);
        const text = count(after, 'metric_error_register', copy) + count(after, 'metric_sources', copy);
        if (marked.has(copy)) {
          expect(rows).toBe(perSnapshot);
          expect(text).toBeGreaterThan(0);
        } else {
          expect(rows + text, `snapshot ${copy} has a half set`).toBe(0);
        }
      }
      after.close();
      // The next open derives the rest, once.
      const reopened = openStore(temp.path);
      expect(count(reopened, 'metric_derivations')).toBe(copies.length + 1);
      expect(count(reopened, 'metric_values')).toBe(perSnapshot * (copies.length + 1));
      reopened.close();
    } finally {
      temp.cleanup();
    }
  }, 60_000);

  it('derives each snapshot once when two processes backfill the same store at the same time', async () => {
    const temp = tempStore();
    try {
      const { store } = temp;
      seedCatalog(store, 1);
      const { id } = ensureSnapshot(store, { account: 'acme', querySetId: 101, runId: 1 }, 0);
      for (const key of metricEndpoints.map((endpoint) => endpoint.key)) {
        savePayload(store, id, key, { data: payloads[key]!.data, validationError: null }, 0);
      }
      const perSnapshot = count(store, 'metric_values', id);
      const copies = copySnapshots(store, id, 60);
      store.close();
      const run = () =>
        new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, ['--import', 'tsx', CHILD, temp.path], {
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
      const after = openStore(temp.path, { deriveMetrics: false });
      expect(count(after, 'metric_derivations')).toBe(copies.length + 1);
      expect(count(after, 'metric_values')).toBe(perSnapshot * (copies.length + 1));
      const claims = count(after, 'metric_error_register', id);
      for (const copy of copies) expect(count(after, 'metric_error_register', copy)).toBe(claims);
      after.close();
    } finally {
      temp.cleanup();
    }
  }, 60_000);
});
