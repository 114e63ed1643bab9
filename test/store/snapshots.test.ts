import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  endpointsToFetch,
  ensureSnapshot,
  invalidPayloads,
  REQUIRED_ENDPOINTS,
  savePayload,
} from '../../src/store/payloads.js';
import { findSnapshot, listSnapshots } from '../../src/store/snapshots.js';
import type { Store } from '../../src/store/sql.js';
import { seedCatalog } from '../sync/helpers/seed-catalog.js';
import { tempStore } from '../sync/helpers/temp-store.js';

const AT = Date.UTC(2026, 0, 2);

async function storeAll(store: Store, runId: number, except: string[] = []) {
  const { id } = await ensureSnapshot(store, { account: 'acme', querySetId: 101, runId }, AT);
  for (const key of REQUIRED_ENDPOINTS) {
    if (!except.includes(key))
      await savePayload(store, id, key, { data: { key, runId }, validationError: null }, AT);
  }
  return id;
}

describe('snapshot store', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = await tempStore());
    await seedCatalog(store, 3);
  });
  afterEach(() => cleanup());

  it('becomes complete only with all 34 valid payloads, each commit moving the state', async () => {
    expect(REQUIRED_ENDPOINTS).toHaveLength(34);
    const { id } = await ensureSnapshot(store, { account: 'acme', querySetId: 101, runId: 3 }, AT);
    const states: string[] = [];
    for (const key of REQUIRED_ENDPOINTS) {
      states.push(await savePayload(store, id, key, { data: { key }, validationError: null }, AT));
    }
    expect(states.slice(0, 33).every((s) => s === 'pending')).toBe(true);
    expect(states[33]).toBe('complete');
    const snapshot = await findSnapshot(store, { querySetId: 101 });
    expect(snapshot?.state).toBe('complete');
    expect(snapshot?.completedAt).toBe(new Date(AT).toISOString());
    expect(snapshot?.run).toEqual({ id: 3, display_name: 'Run 3', created_at: '2025-03-01T00:00:00.000Z' });
    expect(snapshot?.brand).toEqual({ id: 1, name: 'Northwind Coffee' });
    expect(snapshot?.querySet.name).toBe('Main set');
    expect(snapshot?.payloads['presence.gross']).toEqual({ data: { key: 'presence.gross' }, error: null });
  });

  it('keeps an invalid payload raw with its error, marks the snapshot partial and retries it a bounded number of times', async () => {
    const id = await storeAll(store, 2, ['life.kpi']);
    expect(await endpointsToFetch(store, id, 3)).toEqual(['life.kpi']);
    for (let attempt = 1; attempt <= 3; attempt++) {
      const state = await savePayload(
        store,
        id,
        'life.kpi',
        { data: { bad: attempt }, validationError: 'current: expected number' },
        AT,
      );
      expect(state).toBe('partial');
    }
    // Three attempts used: the next pass leaves it alone instead of spending requests forever.
    expect(await endpointsToFetch(store, id, 3)).toEqual([]);
    expect(await endpointsToFetch(store, id, 4)).toEqual(['life.kpi']);
    expect(await invalidPayloads(store, id)).toEqual([
      { endpoint: 'life.kpi', error: 'current: expected number', attempts: 3 },
    ]);
    const partial = await findSnapshot(store, { querySetId: 101, runId: 2 });
    expect(partial?.state).toBe('partial');
    expect(partial?.payloads['life.kpi']).toEqual({ data: { bad: 3 }, error: 'current: expected number' });
    // A partial snapshot is never "the latest complete one".
    expect(await findSnapshot(store, { querySetId: 101 })).toBeUndefined();

    expect(
      await savePayload(store, id, 'life.kpi', { data: { current: 1 }, validationError: null }, AT),
    ).toBe('complete');
  });

  it('never overwrites a payload that was stored valid', async () => {
    const id = await storeAll(store, 1);
    await savePayload(store, id, 'presence.gross', { data: { other: true }, validationError: null }, AT + 1);
    await savePayload(store, id, 'presence.gross', { data: { broken: true }, validationError: 'x' }, AT + 2);
    const snapshot = await findSnapshot(store, { querySetId: 101, runId: 1 });
    expect(snapshot?.payloads['presence.gross']).toEqual({
      data: { key: 'presence.gross', runId: 1 },
      error: null,
    });
    expect(snapshot?.state).toBe('complete');
  });

  it('keeps an answer quoting U+0000 as the server sent it, on either engine', async () => {
    // PostgreSQL's jsonb cannot hold a NUL in a string; the payload must still be stored valid.
    const id = await storeAll(store, 1, ['presence.gross']);
    const data = { answer: 'before\u0000after', brands: ['a\u0000'] };
    expect(await savePayload(store, id, 'presence.gross', { data, validationError: null }, AT)).toBe(
      'complete',
    );
    const snapshot = await findSnapshot(store, { querySetId: 101, runId: 1 });
    expect(snapshot?.payloads['presence.gross']).toEqual({ data, error: null });
  });

  it('lists complete snapshots newest run first, and finds by run or account', async () => {
    await storeAll(store, 1);
    await storeAll(store, 3);
    await storeAll(store, 2, ['market.data']);
    expect((await listSnapshots(store, { querySetId: 101 })).map((s) => s.run.id)).toEqual([3, 1]);
    expect(
      (await listSnapshots(store, { querySetId: 101, includeIncomplete: true })).map((s) => s.run.id),
    ).toEqual([3, 2, 1]);
    expect((await findSnapshot(store, { querySetId: 101 }))?.run.id).toBe(3);
    expect((await findSnapshot(store, { querySetId: 101, runId: 2 }))?.state).toBe('pending');
    expect(await findSnapshot(store, { querySetId: 101, account: 'other' })).toBeUndefined();
    expect(await findSnapshot(store, { querySetId: 102 })).toBeUndefined();
  });
});
