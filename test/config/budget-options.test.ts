import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clearSharedBudgets, sharedBudget } from '../../src/api/shared-budget.js';
import { FakeClock } from '../../src/clock.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from './fixtures.js';

/**
 * One API key, one rate budget, one set of options: `reportd check` (a real process) refuses two
 * accounts that share a key but not its rate_limit or concurrency, naming both paths, and the budget
 * of a key follows the options it is given rather than those of whichever caller came first.
 */
afterEach(() => clearSharedBudgets());

function write(lines: string[]): string {
  const file = join(tempDir(), 'reportd.yaml');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const account = (
  name: string,
  key: string,
  extra: string[] = [],
  url = 'https://api.example.com/v2/integration',
) => [
  `  - name: ${name}`,
  `    base_url: ${url}`,
  `    api_key: ${key}`,
  '    api_secret: s3cret-value',
  ...extra.map((line) => `    ${line}`),
];

describe('one set of budget options per API key', () => {
  it('refuses two accounts with one api_key but different rate_limit and concurrency, naming both paths', async () => {
    const file = write([
      'accounts:',
      ...account('brand-a', 'shared-key', ['rate_limit: { requests: 120, window_seconds: 60 }']),
      ...account('other', 'other-key', ['rate_limit: { requests: 10 }']),
      ...account('brand-b', 'shared-key', ['rate_limit: { requests: 60 }', 'concurrency: 8']),
    ]);
    const result = await runCli(['check', '--config', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'accounts[2].rate_limit.requests: is 60 but accounts[0].rate_limit.requests is 120, with the same api_key on the same server',
    );
    expect(result.stderr).toContain('accounts[2].concurrency: is 8 but accounts[0].concurrency is 4');
    // The window is the default 60 s on both: not a difference.
    expect(result.stderr).not.toContain('window_seconds');
    expect(result.stderr).not.toMatch(/accounts\[1\]/);
    expect(result.stderr).not.toContain('s3cret-value');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('accepts one key with the same options twice (defaults count as written), and one key on two servers', async () => {
    const file = write([
      'accounts:',
      ...account('brand-a', 'shared-key'),
      ...account('brand-b', 'shared-key', [
        'rate_limit: { requests: 120, window_seconds: 60 }',
        'concurrency: 4',
      ]),
      ...account(
        'staging',
        'shared-key',
        ['rate_limit: { requests: 5 }'],
        'https://staging.example.com/v2/integration',
      ),
    ]);
    const result = await runCli(['check', '--config', file]);
    expect(result.stderr).not.toMatch(/rate_limit|concurrency/);
    expect(result.code, result.stderr).toBe(0);
  });

  it("builds a key's budget from the options it is given, not from the first caller's", async () => {
    const clock = new FakeClock();
    const first = sharedBudget('key@https://api.example.com', { requests: 2, windowMs: 1_000, clock });
    const again = sharedBudget('key@https://api.example.com', {
      requests: 5,
      windowMs: 2_000,
      concurrency: 3,
      clock,
    });
    expect(again).toBe(first);
    expect([first.requests, first.windowMs, first.concurrency]).toEqual([5, 2_000, 3]);
    // Behaviour, not just fields: three start at once (concurrency 3), where the first options allowed two.
    const releases = await Promise.all([first.acquire(), first.acquire(), first.acquire()]);
    expect(first.inFlightCount).toBe(3);
    for (const release of releases) release();
  });
});
