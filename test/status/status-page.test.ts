import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/clock.js';
import { configFromObject } from '../../src/config/index.js';
import { type Daemon, startDaemon } from '../../src/daemon/daemon.js';
import { launchBrowser } from '../../src/report/browser-slot.js';
import { findChromium } from '../../src/report/chromium.js';
import { advanceTo, idleSync } from '../daemon/helpers.js';
import { startSmtp, type TestSmtp, tempDir } from '../delivery/smtp-helpers.js';
import { fixtureSnapshot } from '../report/fixtures.js';
import { seedStore } from '../report/helpers.js';

/**
 * The status page on a loopback listener, end to end: the daemon fires a Monday report on a fake
 * clock, renders a real PDF in Chromium, sends it to a real SMTP server; then the page (driven in
 * real headless Chromium at phone width) lists every report with its next fire time, the paused one
 * as paused, the delivery as sent, and its download link returns the PDF.
 * Set REPORTD_STATUS_SCREENSHOT=docs/status-page.png to refresh the picture of docs/operations.md and the README.
 */
let tmp: ReturnType<typeof tempDir>;
let smtp: TestSmtp;
let daemon: Daemon;
const HOSTILE_SET = 'Coffee <img src=x onerror="alert(1)"> buyers';

beforeAll(async () => {
  tmp = tempDir();
  smtp = await startSmtp();
  await seedStore(join(tmp.dir, 'reportd.sqlite'), [
    fixtureSnapshot({ runId: 4825, run: 'W12 2026', querySet: HOSTILE_SET }),
  ]);
  const config = configFromObject(
    {
      accounts: [
        {
          name: 'main',
          base_url: 'http://127.0.0.1:1/v2/integration',
          api_key: 'key',
          api_secret: 'status-page-secret',
        },
      ],
      store: { path: 'reportd.sqlite' },
      sync: { schedule: '0 0 1 1 *' },
      output: { dir: 'reports' },
      smtp: { url: smtp.url, from: 'Reports <reports@example.com>' },
      http: { port: 0, host: '127.0.0.1' },
      reports: [
        {
          name: 'weekly-executive',
          query_sets: [101],
          schedule: { cron: '0 8 * * 1', timezone: 'Europe/Berlin' },
          email: { to: ['ceo@example.com'] },
        },
        {
          name: 'quarterly-board',
          enabled: false,
          query_sets: [101],
          formats: ['pdf', 'xlsx'],
          schedule: { cron: '0 7 1 1,4,7,10 *' },
          email: { to: ['board@example.com'] },
        },
        {
          name: 'on-publish',
          query_sets: [101],
          formats: ['xlsx'],
          trigger: 'new_run',
          email: { to: ['a@example.com'] },
        },
      ],
    },
    tmp.dir,
  );
  const clock = new FakeClock(Date.parse('2026-03-22T12:00:00Z'));
  daemon = await startDaemon({ config, clock, sync: idleSync, pollMs: 3_600_000 });
  await advanceTo(clock, '2026-03-23T07:00:01Z'); // Monday 08:00 Berlin
  await smtp.waitFor(1, 60_000);
}, 90_000);

afterAll(async () => {
  await daemon?.close();
  await smtp?.close();
  tmp?.cleanup();
});

describe('the status page on loopback', () => {
  it('serves the page and the latest PDF without credentials', async () => {
    const page = await fetch(`${daemon.http!.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).not.toMatch(/<script/i);
    // API text is escaped: the set name shows as text, never as an element.
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('Coffee &lt;img src&#x3D;x onerror&#x3D;&quot;alert(1)&quot;&gt; buyers');

    const pdf = await fetch(`${daemon.http!.url}/download/0/pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.pdf"/);
    const bytes = Buffer.from(await pdf.arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    // The same file that was mailed.
    const attached = smtp.messages[0]!.attachments.find((a) => a.contentType === 'application/pdf');
    expect(attached?.content.equals(bytes)).toBe(true);
    // Nothing rendered yet for the paused report: no link, and its URL is a plain 404.
    expect((await fetch(`${daemon.http!.url}/download/1/pdf`)).status).toBe(404);
  });

  it('reads right in headless Chromium at phone width', async () => {
    const browser = await launchBrowser({
      executablePath: findChromium({}),
      handleSignals: true,
      protocolTimeoutMs: 60_000,
    });
    try {
      const tab = await browser.newPage();
      await tab.setViewport({ width: 390, height: 844, deviceScaleFactor: 1 });
      const response = await tab.goto(`${daemon.http!.url}/`, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      const rows = await tab.$$eval('tr.report', (trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 5).map((td) => td.textContent?.trim())),
      );
      expect(rows).toEqual([
        [
          'weekly-executive',
          'active',
          '0 8 * * 1 (Europe/Berlin)',
          '2026-03-23 07:00 UTC',
          'Mon 2026-03-30 08:00 +02:00 (2026-03-30 06:00 UTC)',
        ],
        ['quarterly-board', 'paused', '0 7 1 1,4,7,10 * (UTC)', 'never', 'paused'],
        ['on-publish', 'active', 'on each new run', 'never', 'on the next new run'],
      ]);
      const delivery = await tab.$$eval('tr.delivery td', (tds) => tds.map((td) => td.textContent?.trim()));
      expect(delivery.slice(1, 5)).toEqual(['weekly-executive', '101 / 4825', 'sent', '1']);
      expect(await tab.$$eval('a.dl', (as) => as.map((a) => a.getAttribute('href')))).toEqual([
        '/download/0/pdf',
      ]);
      const setRow = await tab.$eval('tr.set', (tr) => tr.textContent ?? '');
      expect(setRow).toContain(HOSTILE_SET);
      expect(setRow).toContain('4825 · W12 2026');
      expect(await tab.$eval('h3', (h) => h.textContent)).toMatch(/main · credential/);
      // The daemon itself, as the instances sharing the store, with the slot it ran.
      const instances = await tab.$$eval('tr.instance', (trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())),
      );
      expect(instances.map((row) => row[0])).toEqual([daemon.instance.id]);
      expect(instances[0]![4]).toBe('report:weekly-executive 2026-03-23 07:00 ok');
      // No script, and nothing wider than the phone: wide tables scroll inside their own box.
      expect(await tab.evaluate('document.scripts.length')).toBe(0);
      expect(await tab.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      const shot = join(tmp.dir, 'status-page.png');
      await tab.screenshot({ path: shot as `${string}.png`, fullPage: true });
      const target = process.env.REPORTD_STATUS_SCREENSHOT;
      if (target) copyFileSync(shot, target);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
