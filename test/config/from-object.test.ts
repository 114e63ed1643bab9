import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../src/config/load.js';
import { MASK, maskedConfig } from '../../src/config/mask.js';
import { issuesOf, tempDir } from './fixtures.js';

const account = { name: 'sandbox', base_url: 'http://127.0.0.1:4010/v2/integration', api_key: 'sandbox-key' };

describe('configFromObject (the demo builds its config in memory)', () => {
  it('applies defaults and resolves paths and secret files against baseDir', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'secret'), 'sandbox-secret\n');
    const config = configFromObject(
      {
        accounts: [{ ...account, api_secret_file: 'secret' }],
        store: { path: 'demo.sqlite' },
        smtp: {
          host: '127.0.0.1',
          port: 2525,
          user: 'demo',
          password: 'demo-smtp-pw',
          from: 'demo@example.com',
        },
        reports: [{ name: 'demo', trigger: 'new_run', email: { to: ['exec@example.com'] } }],
      },
      dir,
      {},
    );
    expect(config.accounts[0]?.api_secret).toBe('sandbox-secret');
    expect(config.store).toEqual({ path: join(dir, 'demo.sqlite') });
    expect(config.smtp).toMatchObject({
      host: '127.0.0.1',
      port: 2525,
      secure: false,
      password: 'demo-smtp-pw',
    });
    expect(maskedConfig(config).smtp?.password).toBe(MASK);
    expect(Object.isFrozen(config.reports[0]?.email?.to)).toBe(true);
  });

  it('runs the same checks as a file', () => {
    const issues = issuesOf(() =>
      configFromObject(
        { accounts: [{ ...account, api_secret: 'x'.repeat(8), concurrency: 0 }], extra: true },
        tempDir(),
        {},
      ),
    );
    expect(issues.map((issue) => issue.path)).toEqual(['accounts[0].concurrency', 'extra']);
  });
});
