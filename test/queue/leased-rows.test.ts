import { afterEach, describe, expect, it } from 'vitest';
import {
  claimKey,
  claimNext,
  expression,
  fencedWrite,
  type LeaseTable,
  releaseLease,
  renewLease,
} from '../../src/queue/leased-rows.js';
import type { Store } from '../../src/store/sql.js';
import { type TempStore, tempStore } from '../sync/helpers/temp-store.js';

/**
 * The generic lease (queue/leased-rows.ts) on its own, on the engine under test (this file is in
 * both vitest projects): a table of its own, no outbox, no scheduler. Claim, renewal fenced by the
 * claim's token (or its holder), release, takeover after the lease ran out, and a stale holder's
 * write refused.
 */
const now = Date.UTC(2026, 10, 29, 6);

/** The same table leased two ways: fenced by a per-claim token (the outbox) or by the holder (job slots). */
const BY_TOKEN: LeaseTable = {
  name: 'lease_probe',
  key: ['id'],
  holder: 'holder',
  fence: 'token',
  until: 'lease_until',
  held: "state = 'held'",
};
const BY_HOLDER: LeaseTable = { ...BY_TOKEN, fence: 'holder' };

let temp: TempStore | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

async function probeStore(rows: number): Promise<Store> {
  temp = await tempStore();
  const { store } = temp;
  await store.exec(`CREATE TABLE lease_probe (
    id INTEGER PRIMARY KEY, state TEXT NOT NULL, holder TEXT, token TEXT, lease_until BIGINT, note TEXT)`);
  for (let id = 1; id <= rows; id++)
    await store.run(`INSERT INTO lease_probe (id, state) VALUES (?, 'pending')`, [id]);
  return store;
}

interface ProbeRow {
  id: number;
  state: string;
  holder: string | null;
  token: string | null;
  lease_until: number | string | null;
  note: string | null;
}

const read = async (store: Store, id: number) => {
  const row = await store.get<ProbeRow>('SELECT * FROM lease_probe WHERE id = ?', [id]);
  return row && { ...row, lease_until: row.lease_until === null ? null : Number(row.lease_until) };
};

/** A pending row, or a held one whose lease ran out by `at`. */
const claim = (store: Store, holder: string, at: number, leaseMs = 1_000) =>
  claimNext<ProbeRow>(store, BY_TOKEN, {
    holder,
    until: at + leaseMs,
    claimable: expression(`(state = 'pending' OR (state = 'held' AND lease_until < ?))`, at),
    pin: ['state'],
    order: 'id',
    set: [['state', 'held']],
  });

describe('leased rows (queue/leased-rows.ts) on the engine under test', () => {
  it('claims each row once: two holders take different rows, a third finds nothing', async () => {
    const store = await probeStore(2);
    const a = await claim(store, 'a', now);
    const b = await claim(store, 'b', now);
    expect([a?.row.id, b?.row.id].map(Number)).toEqual([1, 2]);
    expect(a?.read.state).toBe('pending');
    expect(await claim(store, 'c', now)).toBeUndefined();
    const row = await read(store, 1);
    expect(row).toMatchObject({ state: 'held', holder: 'a', lease_until: now + 1_000 });
    expect(row?.token).toBe(a?.row.token);
    expect(a?.row.token).not.toBe(b?.row.token);
  });

  it('renews only under the claim: the right token (or holder) moves the lease, another does not', async () => {
    const store = await probeStore(1);
    const a = (await claim(store, 'a', now))!;
    expect(await renewLease(store, BY_TOKEN, { key: [1], token: 'not-the-token' }, now + 5_000)).toBe(false);
    expect((await read(store, 1))?.lease_until).toBe(now + 1_000);
    expect(await renewLease(store, BY_TOKEN, { key: [1], token: a.row.token! }, now + 5_000)).toBe(true);
    expect((await read(store, 1))?.lease_until).toBe(now + 5_000);
    // Fenced by the holder instead (the job slots' way): another holder's renewal changes nothing.
    expect(await renewLease(store, BY_HOLDER, { key: [1], token: 'b' }, now + 9_000)).toBe(false);
    expect(await renewLease(store, BY_HOLDER, { key: [1], token: 'a' }, now + 9_000)).toBe(true);
    expect((await read(store, 1))?.lease_until).toBe(now + 9_000);
  });

  it('releases: the row records the work and the lease ends; a renewal after it is refused', async () => {
    const store = await probeStore(1);
    const a = (await claim(store, 'a', now))!;
    const fence = { key: [1], token: a.row.token! };
    expect(await releaseLease(store, BY_TOKEN, fence, [['state', 'done']])).toBe(true);
    expect(await read(store, 1)).toMatchObject({ state: 'done', lease_until: null });
    expect(await renewLease(store, BY_TOKEN, fence, now + 5_000)).toBe(false);
    expect(await claim(store, 'b', now + 10_000)).toBeUndefined();
  });

  it('is taken over only once the lease ran out, with a new token; the stale holder can no longer write', async () => {
    const store = await probeStore(1);
    const a = (await claim(store, 'a', now))!;
    // Still within a's lease: nobody takes it.
    expect(await claim(store, 'b', now + 500)).toBeUndefined();
    const b = (await claim(store, 'b', now + 2_000))!;
    expect(Number(b.row.id)).toBe(1);
    expect(b.read.state).toBe('held');
    expect(b.row.token).not.toBe(a.row.token);
    // a wakes up (paused past its lease): every write it makes names its old token and lands nowhere.
    const stale = { key: [1], token: a.row.token! };
    expect(await fencedWrite(store, BY_TOKEN, stale, [['note', 'from a']])).toBe(false);
    expect(await renewLease(store, BY_TOKEN, stale, now + 60_000)).toBe(false);
    expect(await releaseLease(store, BY_TOKEN, stale, [['state', 'done']])).toBe(false);
    expect(await read(store, 1)).toMatchObject({ state: 'held', holder: 'b', note: null });
    expect(await fencedWrite(store, BY_TOKEN, { key: [1], token: b.row.token! }, [['note', 'from b']])).toBe(
      true,
    );
    expect((await read(store, 1))?.note).toBe('from b');
  });

  it('claims a key (insert or takeover) once, and a lapsed claim of the key goes to the next holder', async () => {
    const store = await probeStore(0);
    const byKey = (holder: string, at: number) =>
      claimKey<ProbeRow & Record<string, unknown>>(store, BY_HOLDER, {
        key: [7],
        holder,
        until: at + 1_000,
        lock: 'probe:7',
        free: (row) => Number(row.lease_until) < at,
        insert: [['state', 'held']],
        takeover: [['state', 'held']],
      });
    expect(await byKey('a', now)).toMatchObject({ won: true, takeover: false });
    expect(await byKey('b', now + 500)).toMatchObject({ won: false });
    expect(await byKey('b', now + 2_000)).toMatchObject({ won: true, takeover: true });
    expect(await read(store, 7)).toMatchObject({ holder: 'b', lease_until: now + 3_000 });
    expect(await fencedWrite(store, BY_HOLDER, { key: [7], token: 'a' }, [['note', 'from a']])).toBe(false);
  });
});
