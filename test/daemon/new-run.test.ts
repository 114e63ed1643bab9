import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config, configFromObject } from '../../src/config/index.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { writeReportEml } from '../../src/delivery/eml.js';
import { createLogger } from '../../src/log.js';
import { listDeliveries } from '../../src/outbox/reads.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';

/**
 * The whole daemon against the sandbox API, a real SMTP server and real Chromium: a `trigger: new_run`
 * report is mailed once when a run is published, and the daemon's logs and endpoints behave.
 */
const SMTP_PASSWORD = 'smtp-pa55word-do-not-log';

let tmp: ReturnType<typeof tempDir>;
let sandbox: Sandbox;
let smtp: TestSmtp;
let daemon: Daemon;
let config: Config;
const logLines: string[] = [];

beforeAll(async () => {
  tmp = tempDir();
  sandbox = await startSandbox({ rate: { requests: 1000, windowMs: 60_000 } });
  smtp = await startSmtp({ user: 'reportd', password: SMTP_PASSWORD });
  config = configFromObject(
    {
      accounts: [
        {
          name: 'acme',
          base_url: sandbox.baseUrl,
          api_key: sandbox.apiKey,
          api_secret: sandbox.apiSecret,
          rate_limit: { requests: 1000, window_seconds: 60 },
        },
      ],
      store: { path: 'reportd.sqlite' },
      sync: { query_sets: [101], backfill_runs: 1 },
      output: { dir: 'reports' },
      smtp: {
        url: `smtp://reportd:${SMTP_PASSWORD}@127.0.0.1:${smtp.port}`,
        from: 'Reports <reports@example.com>',
      },
      reports: [
        {
          name: 'on-publish',
          query_sets: [101],
          formats: ['pdf'],
          trigger: 'new_run',
          email: { to: ['ceo@example.com'], subject: 'AI visibility — {{brand}} — {{run}}' },
        },
      ],
      http: { port: 0, host: '127.0.0.1' },
      log: { level: 'debug' },
    },
    tmp.dir,
  );
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => logLines.push(line) },
  });
  daemon = await startDaemon({ config, logger, pollMs: 500 });
});

afterAll(async () => {
  await daemon?.close();
  await smtp?.close();
  await sandbox?.close();
  tmp?.cleanup();
});

describe('daemon with trigger: new_run', () => {
  it('sends nothing for runs that existed at start, then mails a newly published run once', async () => {
    await daemon.syncNow(); // waits for the start-up pass, then runs one more: still nothing new
    expect(smtp.messages).toHaveLength(0);

    const run = sandbox.publishRun(101);
    await daemon.syncNow();
    const [mail] = await smtp.waitFor(1, 60_000);
    expect(mail!.subject).toBe(`AI visibility — Northwind Coffee — ${run.display_name}`);
    const pdf = mail!.attachments.find((a) => a.contentType === 'application/pdf');
    expect(pdf?.filename).toMatch(/^on-publish-northwind-coffee-.*\.pdf$/);
    const pdfFile = join(tmp.dir, 'mail.pdf');
    writeFileSync(pdfFile, pdf!.content);
    const text = execFileSync('pdftotext', [pdfFile, '-'], { encoding: 'utf8' });
    expect(text).toContain('Northwind Coffee');
    expect(text).toContain(run.display_name);
    expect(mail!.text).toContain('Northwind Coffee');

    // More passes without a new run: still one message.
    await daemon.syncNow();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(smtp.messages).toHaveLength(1);
    expect((await listDeliveries(daemon.store)).map((d) => [d.runId, d.state])).toEqual([[run.id, 'sent']]);
  });

  it('answers /healthz, /readyz and Prometheus /metrics', async () => {
    const base = daemon.http!.url;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const sample =
      /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*",?)*\})? [-+]?(\d+(\.\d+)?([eE][-+]?\d+)?|NaN|\+Inf|-Inf)$/;
    for (const line of text.split('\n').filter(Boolean)) {
      if (line.startsWith('#')) expect(line).toMatch(/^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$/);
      else expect(line).toMatch(sample);
    }
    expect(text).toMatch(/^reportd_deliveries\{state="sent"\} 1$/m);
    expect(text).toMatch(/^reportd_snapshots\{state="complete"\} [1-9]/m);
    expect(text).toMatch(/^reportd_render_duration_seconds_count 1$/m);
    expect(text).toMatch(/^reportd_budget_in_use\{account="acme"\} \d+$/m);
    expect(text).toMatch(/^reportd_api_requests_total\{outcome="[a-z_]+"\} [1-9]/m);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });

  it('logs JSON lines without the API secret or the SMTP password', () => {
    expect(logLines.length).toBeGreaterThan(5);
    const all = logLines.join('');
    expect(all).toContain('report emailed');
    expect(all).not.toContain(sandbox.apiSecret);
    expect(all).not.toContain(SMTP_PASSWORD);
    for (const line of logLines) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('writes the same email as an .eml file without counting it as a delivery', async () => {
    const file = await writeReportEml({
      config,
      store: daemon.store,
      report: 'on-publish',
      querySetId: 101,
      file: join(tmp.dir, 'preview', 'on-publish.eml'),
    });
    const mail = await simpleParser(readFileSync(file));
    expect(mail.subject).toMatch(/^AI visibility — Northwind Coffee — /);
    expect(mail.attachments.map((a) => a.contentType)).toEqual(['application/pdf']);
    expect(await listDeliveries(daemon.store)).toHaveLength(1);
  });

  it('close() is idempotent and stops the listener', async () => {
    const base = daemon.http!.url;
    const [a, b] = [daemon.close(), daemon.close()];
    expect(a).toBe(b);
    await a;
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });
});
