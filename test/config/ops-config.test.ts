import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { MINIMAL, problems, writeConfig } from './fixtures.js';

/** The ops fields: lifecycle, notify_on_failure and http.auth, refused with their path and one line. */
const SMTP = 'smtp: { host: mail.example.com, from: reports@example.com }\n';
const check = (text: string) => problems(() => loadConfig(writeConfig(text), {}));
const report = (extra: string) =>
  `${MINIMAL}${SMTP}reports:\n  - name: weekly\n    schedule: { cron: '0 8 * * 1' }\n    email: { to: [cmo@example.com] }\n${extra}`;

describe('ops config fields', () => {
  it('checks notice channels against channels[], with the path of the wrong name', () => {
    const hook =
      'channels:\n  - { name: ops-webhook, type: webhook, url: "https://hooks.example.com/r", secret: whsec_MDEyMzQ1Njc4OWFiY2RlZg== }\n';
    const ok = loadConfig(
      writeConfig(
        `${MINIMAL}${SMTP}${hook}notify_on_failure: { email: [ops@example.com], channels: [ops-webhook] }\n`,
      ),
      {},
    );
    expect(ok.notify_on_failure.channels).toEqual(['ops-webhook']);
    expect(check(`${MINIMAL}${SMTP}${hook}notify_on_failure: { channels: [ops-webhook, x] }\n`)).toEqual([
      'notify_on_failure.channels[1]: no channel named "x" (channels: ops-webhook)',
    ]);
    expect(check(report('    notify_on_failure: { channels: [x] }\n'))).toEqual([
      'reports[0].notify_on_failure.channels[0]: no channel named "x" (channels: none)',
    ]);
    expect(check(report('    notify_on_failure: { channels: [{ webhook: x }] }\n'))).toEqual([
      'reports[0].notify_on_failure.channels[0]: expected string, got object',
    ]);
  });

  it('needs smtp to mail notices, and valid addresses', () => {
    expect(check(`${MINIMAL}notify_on_failure: { email: [ops@example.com] }\n`)).toEqual([
      'smtp: required: notify_on_failure.email sends notices by email',
    ]);
    expect(check(`${MINIMAL}${SMTP}notify_on_failure: { email: [ops] }\n`)).toEqual([
      'notify_on_failure.email[0]: expected an email address like ops@example.com or "Ops <ops@example.com>"',
    ]);
  });

  it('checks lifecycle dates and durations', () => {
    expect(check(report('    active_from: 2026-02-30\n    max_delay: 6 hours\n'))).toEqual([
      'reports[0].active_from: not a calendar date',
      'reports[0].max_delay: expected a duration like 90s, 30m, 6h or 2d',
    ]);
    expect(check(report('    active_from: 2026-05-01\n    active_until: 2026-04-01\n'))).toEqual([
      'reports[0].active_until: 2026-04-01 is before active_from 2026-05-01: it would never fire',
    ]);
  });

  it('wants one kind of http.auth, complete', () => {
    expect(check(`${MINIMAL}http: { auth: { username: ops } }\n`)).toEqual([
      'http.auth.password: required with username (or password_file)',
    ]);
    expect(check(`${MINIMAL}http: { auth: { bearer_token: short } }\n`)).toEqual([
      'http.auth.bearer_token: use at least 16 characters (e.g. `openssl rand -hex 24`)',
    ]);
    expect(
      check(`${MINIMAL}http: { auth: { bearer_token: 0123456789abcdef0, username: ops, password: pw } }\n`),
    ).toEqual(['http.auth: set a bearer token or basic auth (username + password), not both']);
    expect(check(`${MINIMAL}http: { auth: {} }\n`)).toEqual([
      'http.auth: set bearer_token (or bearer_token_file), or username and password',
    ]);
  });
});
