import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { MINIMAL, writeConfig } from './fixtures.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const example = join(root, 'config/reportd.example.yaml');
const env = {
  REPORTD_API_KEY: 'key-from-env',
  REPORTD_API_SECRET: 'secret-from-env',
  SMTP_PASSWORD: 'smtp-pass-1',
};

describe('the example config', () => {
  it('loads with the documented environment variables', () => {
    const config = loadConfig(example, env);
    expect(config.accounts[0]).toMatchObject({
      name: 'acme',
      api_key: 'key-from-env',
      api_secret: 'secret-from-env',
    });
    expect(config.reports.map((report) => report.name)).toEqual(['weekly-executive', 'new-run-analyst']);
    expect(config.reports[0]?.schedule).toEqual({ cron: '0 8 * * 1', timezone: 'Europe/Berlin' });
    expect(config.reports[1]?.trigger).toBe('new_run');
    expect(config.smtp).toMatchObject({
      host: 'mail.example.com',
      port: 587,
      secure: false,
      user: 'reportd',
      password: 'smtp-pass-1',
    });
    expect(config.http.port).toBe(9464);
  });

  it('resolves relative paths against the config file folder', () => {
    const config = loadConfig(example, env);
    expect(config.store).toEqual({ path: join(root, 'config/data/reportd.sqlite') });
    expect(config.output.dir).toBe(join(root, 'config/reports'));
  });
});

describe('defaults', () => {
  it('fills every documented default into a minimal config', () => {
    const file = writeConfig(MINIMAL);
    const config = loadConfig(file, {});
    expect(config.accounts[0]).toMatchObject({
      rate_limit: { requests: 120, window_seconds: 60 },
      concurrency: 4,
      timeout_seconds: 30,
    });
    expect(config.store).toEqual({ path: join(dirname(file), 'data/reportd.sqlite') });
    expect(config.sync).toEqual({
      schedule: '*/10 * * * *',
      query_sets: 'all',
      backfill_runs: 4,
      catalog_ttl_minutes: 60,
      max_payload_retries: 3,
      max_payload_mb: 32,
    });
    expect(config.output.dir).toBe(join(dirname(file), 'reports'));
    expect(config.templates).toEqual({});
    expect(config.chromium).toEqual({ render_timeout_seconds: 60, recycle_after: 50 });
    expect(config.smtp).toBeUndefined();
    expect(config.reports).toEqual([]);
    expect(config.http).toEqual({ host: '0.0.0.0', allowed_hosts: [] });
    expect(config.log.level).toBe('info');
  });

  it('fills report defaults and the smtp port from secure', () => {
    const config = loadConfig(
      writeConfig(`${MINIMAL}
smtp: { host: mail.example.com, secure: true, from: reports@example.com }
reports:
  - name: weekly
    schedule: { cron: '0 8 * * 1' }
    email: { to: [cmo@example.com] }
`),
      {},
    );
    expect(config.smtp).toMatchObject({ host: 'mail.example.com', port: 465, secure: true });
    expect(config.reports[0]).toEqual({
      name: 'weekly',
      query_sets: 'all',
      formats: ['pdf'],
      mode: 'digest',
      sections: ['overview', 'presence', 'life', 'gravity', 'scout', 'market'],
      detail: 'full',
      schedule: { cron: '0 8 * * 1', timezone: 'UTC' },
      locale: 'en-US',
      false_discovery_rate: 0.05,
      require_likely_change: false,
      page: { size: 'A4', orientation: 'portrait' },
      // No subject: the locale's default subject is used when the email is composed.
      email: { to: ['cmo@example.com'], cc: [], bcc: [], attach: 'files', link_expiry: '7d' },
      max_attachment_mb: 10,
      enabled: true,
    });
  });

  it('returns a deeply frozen config', () => {
    const config = loadConfig(writeConfig(MINIMAL), {});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.accounts[0]?.rate_limit)).toBe(true);
    expect(() => {
      (config.sync as { backfill_runs: number }).backfill_runs = 99;
    }).toThrow(TypeError);
  });
});
