import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';

describe('FakeClock', () => {
  it('wakes sleepers in deadline order as time advances', async () => {
    const clock = new FakeClock(0);
    const woke: string[] = [];
    void clock.sleep(300).then(() => woke.push(`b@${clock.now()}`));
    void clock.sleep(100).then(() => woke.push(`a@${clock.now()}`));
    await clock.advance(150);
    expect(woke).toEqual(['a@100']);
    await clock.advance(1000);
    expect(woke).toEqual(['a@100', 'b@300']);
    expect(clock.now()).toBe(1150);
  });

  it('rejects a sleep when its signal aborts', async () => {
    const clock = new FakeClock(0);
    const controller = new AbortController();
    const sleeping = clock.sleep(10_000, controller.signal);
    controller.abort(new Error('shutdown'));
    await expect(sleeping).rejects.toThrow('shutdown');
    expect(clock.pendingSleepers).toBe(0);
  });
});
