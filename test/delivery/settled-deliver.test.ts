import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCorruptingProxy } from '../sync/helpers/corrupting-proxy.js';
import { type DeliveryCliEnv, startDeliveryCliEnv } from './cli-env.js';

/**
 * A run whose life.kpi payload drifted from its schema (the sandbox behind a proxy that rewrites it),
 * synced and delivered by the built CLI to a real SMTP server, printed by real Chromium: once its
 * retries are used the run is mailed, and the PDF says what is missing and which endpoint drifted.
 */
let env: DeliveryCliEnv;
let proxy: Awaited<ReturnType<typeof startCorruptingProxy>>;
let config: string;

beforeAll(async () => {
  env = await startDeliveryCliEnv();
  proxy = await startCorruptingProxy(env.sandbox.baseUrl, {
    path: /^\/v2\/integration\/life\/sets\/102\/kpi\?/,
    rewrite: (body) => ({ ...body, current: 'sixty percent' }),
  });
  config = env.writeConfig(
    'reportd.yaml',
    `${env.accountsYaml.replace(env.sandbox.baseUrl, proxy.baseUrl)}sync: { query_sets: [102], backfill_runs: 1, max_payload_retries: 0 }
smtp: { url: "${env.smtp.url}", from: "Reports <reports@example.com>" }
reports:
  - name: weekly
    query_sets: [102]
    formats: [pdf]
    schedule: { cron: "0 8 * * 1", timezone: Europe/Berlin }
    email: { to: [ceo@example.com], subject: "Weekly — {{brand}} — {{run}}" }
log: { level: warn }
`,
  );
});

afterAll(async () => {
  await proxy?.close();
  await env?.close();
});

describe('a settled run (a drifted payload, retries used)', () => {
  it('is delivered, and its PDF says "Data unavailable" and names the drifted endpoint', async () => {
    const sync = await env.reportd(config, 'sync', '--no-progress');
    // The pass reports the drift (exit 1, one line), and the run is settled all the same.
    expect(sync.code).toBe(1);
    expect(sync.stderr).toMatch(/life\.kpi: current: /);
    const status = await env.reportd(config, 'status');
    expect(status.stdout).toMatch(/the API's answer drifted from its schema for life\.kpi/);

    const sent = await env.reportd(config, 'deliver', '--report', 'weekly');
    expect(sent.code, sent.stderr).toBe(0);
    expect(env.smtp.messages).toHaveLength(1);
    const pdf = env.smtp.messages[0]!.attachments.find((a) => a.contentType === 'application/pdf');
    const file = join(env.dir, 'settled.pdf');
    writeFileSync(file, pdf!.content);
    const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    expect(text).toContain('Data unavailable for life.kpi');
    expect(text).toMatch(/Data unavailable — /);
  });
});
