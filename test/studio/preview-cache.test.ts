import { describe, expect, it } from 'vitest';
import { PreviewCache } from '../../src/studio/preview-cache.js';
import type { Preview } from '../../src/studio/session.js';

/** The studio's renders kept: at most so many and so large, the least recently used going first. */
const preview = (chars: number): Preview => ({
  html: 'x'.repeat(chars),
  email: { subject: 's', html: '', text: '' },
  channels: [],
});

describe('PreviewCache', () => {
  it('keeps at most `count` renders, dropping the least recently used', () => {
    const cache = new PreviewCache({ count: 3, bytes: 1e9 });
    for (const key of ['a', 'b', 'c']) cache.set(key, { version: 1, preview: preview(10) });
    expect(cache.get('a')).toBeDefined(); // a is now the most recent
    cache.set('d', { version: 1, preview: preview(10) });
    expect(cache.get('b')).toBeUndefined();
    expect(['a', 'c', 'd'].map((key) => cache.get(key) !== undefined)).toEqual([true, true, true]);
    expect(cache.size.count).toBe(3);
  });

  it('keeps their size under `bytes`, and always the newest', () => {
    const cache = new PreviewCache({ count: 100, bytes: 10_000 });
    for (let i = 0; i < 50; i++) cache.set(`k${i}`, { version: 1, preview: preview(1_000) });
    expect(cache.size.bytes).toBeLessThanOrEqual(10_000);
    expect(cache.get('k49')).toBeDefined();
    expect(cache.get('k0')).toBeUndefined();
    cache.set('big', { version: 1, preview: preview(100_000) });
    expect(cache.size.count).toBe(1);
    expect(cache.get('big')?.preview.html).toHaveLength(100_000);
  });

  it('replaces a key in place, counting its size once', () => {
    const cache = new PreviewCache({ count: 10, bytes: 1e9 });
    cache.set('a', { version: 1, preview: preview(100) });
    cache.set('a', { version: 2, preview: preview(100) });
    expect(cache.size.count).toBe(1);
    expect(cache.get('a')?.version).toBe(2);
  });
});
