import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIncident } from '../../src/notify/incidents.js';
import { openStore } from '../../src/store/db.js';
import { recordSkippedSlots } from '../../src/store/schedule-events.js';
import { runCli } from '../helpers/cli.js';

/**
 * `reportd check` and `reportd history` as ops run them (the built CLI in a child process): the
 * schedules listing with paused reports, and history's report states and skipped slots.
 */
let dir: string;
let config: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-ops-cli-'));
  config = join(dir, 'reportd.yaml');
  writeFileSync(
    config,
    `accounts:
  - { name: acme, base_url: "https://api.example.com/v2/integration", api_key: k, api_secret: s3cret-value }
store: { path: reportd.sqlite }
smtp: { host: mail.example.com, from: reports@example.com }
reports:
  - name: weekly
    schedule: { cron: "0 8 * * 1", timezone: Europe/Berlin }
    max_delay: 6h
    email: { to: [ceo@example.com] }
  - name: quarterly
    enabled: false
    schedule: { cron: "0 8 1 1,4,7,10 *" }
    email: { to: [ceo@example.com] }
`,
  );
  const store = await openStore(join(dir, 'reportd.sqlite'));
  await recordSkippedSlots(store, {
    job: 'report:weekly',
    firstSlotAt: Date.parse('2026-03-23T07:00:00Z'),
    at: Date.parse('2026-03-24T07:00:00Z'),
    detail: 'missed slots older than max_delay 6h were not sent at start-up',
  });
  await openIncident(store, {
    key: 'delivery:weekly',
    kind: 'delivery_failed',
    report: 'weekly',
    detail: 'report weekly: a delivery failed for good: recipient or sender refused: 550 No such user',
    at: Date.parse('2026-03-23T07:00:05Z'),
    recipients: ['ops@example.com'],
  });
  await store.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ops in check and history', () => {
  it('check warns in one line when the status page is off, and masks http.auth secrets', async () => {
    const open = join(dir, 'open.yaml');
    writeFileSync(
      open,
      `accounts:
  - { name: acme, base_url: "https://api.example.com/v2/integration", api_key: k, api_secret: s3cret-value }
http: { port: 9464, host: 0.0.0.0 }
`,
    );
    const warned = await runCli(['check', '--config', open]);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toBe(
      'reportd: warning: the status page is off: http.host 0.0.0.0 is not a loopback address and http.auth is not set\n',
    );
    const guarded = join(dir, 'guarded.yaml');
    writeFileSync(
      guarded,
      `accounts:
  - { name: acme, base_url: "https://api.example.com/v2/integration", api_key: k, api_secret: s3cret-value }
http: { port: 9464, host: 0.0.0.0, auth: { bearer_token: "\${STATUS_TOKEN}" } }
`,
    );
    const quiet = await runCli(['check', '--config', guarded], {
      env: { STATUS_TOKEN: 'tok-0123456789abcdef-xyz' },
    });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout).toContain('bearer_token: "********"');
    expect(quiet.stdout).not.toContain('tok-0123456789abcdef-xyz');
  });

  it('check lists the next three fire times and the paused report as paused', async () => {
    const result = await runCli(['check', '--config', config]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    const weekly = lines.indexOf('#   report weekly: "0 8 * * 1" Europe/Berlin');
    expect(weekly).toBeGreaterThan(0);
    for (const line of lines.slice(weekly + 1, weekly + 4)) {
      expect(line).toMatch(/^# {5}Mon \d{4}-\d\d-\d\d 08:00 \+0[12]:00 {2}= \d{4}-\d\d-\d\d 0[67]:00 UTC$/);
    }
    expect(lines).toContain('#   report quarterly: paused (enabled: false)');
    expect(result.stdout).not.toContain('s3cret-value');
  });

  it('history says which reports are paused and which slots were skipped', async () => {
    const result = await runCli(['history', '--config', config]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('  active    weekly  0 8 * * 1 Europe/Berlin');
    expect(result.stdout).toContain('  paused    quarterly  0 8 1 1,4,7,10 * UTC');
    expect(result.stdout).toContain(
      '  2026-03-24T07:00:00.000Z  report:weekly  from 2026-03-23T07:00:00.000Z  missed slots older than max_delay 6h were not sent at start-up',
    );
    const json = JSON.parse((await runCli(['history', '--config', config, '--json'])).stdout);
    expect(json.schedules).toContainEqual({
      report: 'quarterly',
      state: 'paused',
      schedule: '0 8 1 1,4,7,10 * UTC',
    });
    expect(json.skipped).toHaveLength(1);
    expect(json.incidents).toEqual([
      {
        incident: 'delivery:weekly',
        kind: 'delivery_failed',
        state: 'open',
        openedAt: '2026-03-23T07:00:05.000Z',
        clearedAt: null,
        detail: 'report weekly: a delivery failed for good: recipient or sender refused: 550 No such user',
        notices: [{ kind: 'opened', destination: 'email', state: 'pending', attempts: 0 }],
      },
    ]);
    expect(result.stdout).toContain(
      '  open     delivery:weekly  2026-03-23T07:00:05.000Z → now  report weekly: a delivery failed for good: recipient or sender refused: 550 No such user  (opened notice pending)',
    );
  });
});
