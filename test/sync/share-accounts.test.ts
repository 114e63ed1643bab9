import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { type AccountTurn, shareAccounts } from '../../src/sync/share-accounts.js';

/**
 * The queue a daemon's pass works through when daemons share the accounts (the processes themselves:
 * test/daemon/cluster-accounts.test.ts). Here the share and the other daemon are stand-ins, so each
 * rule shows on its own: at most the share at once, the last started give their account back when
 * the share shrinks, an account held elsewhere is tried again until free, one done elsewhere is
 * skipped.
 */
const accounts = ['a', 'b', 'c', 'd'].map((name) => ({ name }));

describe('sharing the accounts of a pass', () => {
  it('runs at most its share, and gives the last started back when another daemon joins', async () => {
    let quota = 4;
    let mostAtOnce = 0;
    let now = 0;
    const turns: string[] = [];
    const finished = new Set<string>();
    await shareAccounts({
      accounts,
      share: { quota: async () => quota },
      clock: systemClock,
      doneElsewhere: async () => false,
      heldElsewhere: async () => false,
      async run(account, shouldYield): Promise<AccountTurn> {
        now++;
        mostAtOnce = Math.max(mostAtOnce, now);
        try {
          // Each account's work: 60 steps (3 s), checking between steps whether to give it back; longer
          // than the pass's 1 s look at the share, so the smaller share is seen while all four still run.
          for (let step = 0; step < 60; step++) {
            if (shouldYield()) {
              turns.push(`${account.name} yielded`);
              return 'yielded';
            }
            await new Promise((resolve) => setTimeout(resolve, 50));
            // A second daemon joins a little after the start: the share halves.
            if (turns.length === 0 && step === 5) quota = 2;
          }
          turns.push(`${account.name} ran`);
          finished.add(account.name);
          return 'ran';
        } finally {
          now--;
        }
      },
    });
    expect(mostAtOnce).toBe(4);
    expect(turns.filter((t) => t.endsWith('yielded'))).toHaveLength(2);
    // Every account ran to the end once, given back or not.
    expect([...finished].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('tries an account another process holds again until it is free, and skips one synced elsewhere', async () => {
    let heldFor = 2;
    const ran: string[] = [];
    await shareAccounts({
      accounts,
      share: { quota: async () => 2 },
      clock: systemClock,
      doneElsewhere: async (account) => account.name === 'd',
      heldElsewhere: async () => false,
      async run(account): Promise<AccountTurn> {
        if (account.name === 'a' && heldFor-- > 0) return 'held';
        ran.push(account.name);
        return 'ran';
      },
    });
    expect(ran.sort()).toEqual(['a', 'b', 'c']);
    expect(heldFor).toBe(-1);
  });
});
