import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAlertPass } from '../../src/alerts/run-alerts.js';
import { systemClock } from '../../src/clock.js';
import { configFromObject } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { latestRuns } from '../../src/delivery/due.js';
import { composeForPreview } from '../../src/delivery/preview.js';
import { createReportRenderer } from '../../src/delivery/render-delivery.js';
import { openIncident } from '../../src/notify/incidents.js';
import { coversKey } from '../../src/outbox/digest-rows.js';
import { listDeliveries } from '../../src/outbox/reads.js';
import { EMAIL_DESTINATION, unsavedDelivery } from '../../src/outbox/row.js';
import { endBrowser, launchBrowser } from '../../src/report/browser-slot.js';
import { findChromium } from '../../src/report/chromium.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { openStore } from '../../src/store/db.js';
import type { Store } from '../../src/store/sql.js';
import { withInlineParts } from '../../src/studio/inline-parts.js';
import { runSync } from '../../src/sync/sync.js';
import { wcagViolations } from '../report/axe.js';
import { solidPng } from '../report/images.js';
import { HTML_BUDGET_BYTES, layoutProblems, unsupported } from './email-lint.js';

/**
 * The email gate: every kind of message reportd mails (a report, a digest of 80 sets, an alert, a
 * failure notice), composed from the sandbox's data by the composers the outbox uses, checked as
 * email projects check theirs: caniemail's data for the clients our readers use, Gmail's clip, the
 * hybrid layout's Outlook widths, sized and described images; then in real Chromium at a phone's
 * 320 px (no sideways scroll) and axe-core at 320 and 1024 px, light and dark.
 */

const DIGEST_SETS = 80;
const FROM = 'Reports <reports@example.com>';

let dir: string;
let store: Store;
let browser: Browser;
let page: Page;
const emails = new Map<string, { html: string; text: string; logo?: { width: number; height: number } }>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-email-gate-'));
  // The sandbox's sets with runs (101, 102, 201) and the extra ones make the 80 of the digest.
  const sandbox = await startSandbox({
    extraSets: DIGEST_SETS - 3,
    rate: { requests: 100_000, windowMs: 1000 },
  });
  const logo = join(dir, 'logo.png');
  // A wide logo, as themes have them: 1200 × 240, drawn for print.
  writeFileSync(logo, solidPng(1200, 240, [31, 78, 121]));
  try {
    const config = gateConfig(sandbox.baseUrl, sandbox.apiKey, sandbox.apiSecret, logo);
    store = await openStore(config.store);
    const sync = () => runSync({ store, accounts: config.accounts, settings: config.sync });
    expect((await sync()).errors).toEqual([]);
    await runAlertPass({
      store,
      alerts: config.alerts,
      accounts: config.accounts,
      from: FROM,
      now: Date.now(),
    });
    sandbox.publishRun(101, { movement: true });
    expect((await sync()).errors).toEqual([]);
    const [fired] = await runAlertPass({
      store,
      alerts: config.alerts,
      accounts: config.accounts,
      from: FROM,
      now: Date.now(),
    });
    // A credential the sandbox refuses: the incident a wrong secret opens, in the sandbox's words.
    const refused = await runSync({
      store,
      accounts: [{ ...config.accounts[0]!, api_secret: 'wrong' }],
      settings: config.sync,
    });
    await openIncident(store, {
      key: 'credential:sandbox',
      kind: 'credential_refused',
      detail: refused.errors[0]?.message ?? 'refused',
      at: Date.now(),
      recipients: ['ops@example.com'],
    });
    const notice = (await listDeliveries(store)).find((row) => row.kind === 'notice')!;

    const renderer = createReportRenderer({ config, store, clock: systemClock, idleMs: 0 });
    try {
      const runs = await latestRuns(store, config.reports[0]!, config.accounts);
      expect(runs).toHaveLength(DIGEST_SETS);
      const row = (fields: {
        querySetId: number;
        runId: number;
        account: string | null;
        covers: string | null;
      }) =>
        unsavedDelivery(
          { report: 'weekly', destination: EMAIL_DESTINATION, messageId: '<gate@reportd>', ...fields },
          systemClock.now(),
        );
      const first = runs.find((run) => run.querySetId === 101)!;
      const rows = {
        report: row({ ...first, covers: null }),
        digest: row({ querySetId: 0, runId: 0, account: null, covers: coversKey(runs) }),
        alert: fired!.delivery,
        notice,
      };
      for (const [kind, delivery] of Object.entries(rows)) {
        const composed = await composeForPreview(delivery, { config, store, renderer, clock: systemClock });
        const { message } = await composed.email!();
        const logoPart = message.attachments?.find((part) => part.cid);
        const png = logoPart ? PNG.sync.read(logoPart.content as Buffer) : undefined;
        emails.set(kind, {
          // As a mail client shows it: the inline logo found by its cid.
          html: withInlineParts(String(message.html), message.attachments),
          text: String(message.text),
          ...(png ? { logo: { width: png.width, height: png.height } } : {}),
        });
        emails.set(`${kind}:sent`, { html: String(message.html), text: String(message.text) });
      }
    } finally {
      await renderer.close();
    }
  } finally {
    await sandbox.close();
  }
  browser = await launchBrowser({
    executablePath: findChromium(),
    handleSignals: false,
    protocolTimeoutMs: 60_000,
  });
  page = await browser.newPage();
}, 600_000);

afterAll(async () => {
  if (browser) await endBrowser(browser, { kill: true });
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

function gateConfig(baseUrl: string, apiKey: string, apiSecret: string, logo: string): Config {
  return configFromObject(
    {
      accounts: [
        {
          name: 'sandbox',
          base_url: baseUrl,
          api_key: apiKey,
          api_secret: apiSecret,
          rate_limit: { requests: 100_000, window_seconds: 1 },
        },
      ],
      store: { path: join(dir, 'reportd.sqlite') },
      sync: { backfill_runs: 2 },
      output: { dir: join(dir, 'out') },
      smtp: { host: 'localhost', from: FROM },
      // HTML files only: the gate is about the message, and an 80-set PDF would only slow it down.
      reports: [
        {
          name: 'weekly',
          formats: ['html'],
          schedule: { cron: '0 8 * * 1', timezone: 'Europe/Berlin' },
          theme: { logo },
          email: { to: ['ceo@example.com'] },
        },
      ],
      alerts: [
        {
          name: 'visibility-drop',
          query_sets: [101],
          rules: [{ metric: 'presence.gross', change: '<= -5' }, { event: 'new_error' }],
          email: { to: ['cmo@example.com'] },
        },
      ],
    },
    dir,
  );
}

const KINDS = ['report', 'digest', 'alert', 'notice'] as const;
const sent = (kind: string) => emails.get(`${kind}:sent`)!;
const shown = (kind: string) => emails.get(kind)!;

describe('email gate: what clients support', () => {
  for (const kind of KINDS) {
    it(`${kind}: no feature Outlook, Outlook.com, Gmail, Apple Mail or Yahoo lacks, outside the allowlist`, () => {
      expect(unsupported(sent(kind).html)).toEqual([]);
    });

    it(`${kind}: under ${HTML_BUDGET_BYTES / 1024} KB, sized images, Outlook widths, safe class names`, () => {
      const { html } = sent(kind);
      expect(Buffer.byteLength(html)).toBeLessThan(HTML_BUDGET_BYTES);
      expect(layoutProblems(html)).toEqual([]);
    });
  }

  it('the digest of 80 sets is the largest, and its size is reported', () => {
    const sizes = Object.fromEntries(KINDS.map((kind) => [kind, Buffer.byteLength(sent(kind).html)]));
    console.log(`email HTML bytes: ${JSON.stringify(sizes)}`);
    expect(Math.max(...Object.values(sizes))).toBe(sizes.digest);
  });

  it('the logo is drawn at twice its slot, and its attributes say the slot', () => {
    const { html, logo } = sent('report') && shown('report');
    expect(logo).toEqual({ width: 400, height: 80 });
    expect(html).toMatch(/<img [^>]*width="200" height="40"/);
  });

  it('the plain-text part says what the HTML says: every word shown is in it', async () => {
    const words = (text: string) =>
      text
        .toLowerCase()
        .split(/[\s,.;:()·—–]+/)
        .filter(Boolean);
    for (const kind of KINDS) {
      await page.setContent(shown(kind).html, { waitUntil: 'load' });
      const inText = new Set(words(shown(kind).text));
      const missing = words(String(await page.evaluate('document.body.innerText'))).filter(
        (w) => !inText.has(w),
      );
      expect(missing, kind).toEqual([]);
    }
  });
});

describe('email gate: reflow and accessibility in Chromium', () => {
  for (const kind of KINDS) {
    it(`${kind}: no sideways scroll at 320 px; axe-core clean at 320 and 1024 px, light and dark`, async () => {
      const found: string[] = [];
      for (const width of [320, 1024]) {
        for (const scheme of ['light', 'dark'] as const) {
          await page.setViewport({ width, height: 800 });
          await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
          await page.setContent(shown(kind).html, { waitUntil: 'load' });
          const { scrollWidth, clientWidth } = (await page.evaluate(
            '({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth })',
          )) as { scrollWidth: number; clientWidth: number };
          if (scrollWidth > clientWidth)
            found.push(`${width} px ${scheme}: scrollWidth ${scrollWidth} > ${clientWidth}`);
          for (const violation of await wcagViolations(page))
            found.push(
              `${width} px ${scheme}: ${violation.id} ${violation.nodes
                .slice(0, 2)
                .map(
                  (node) => `${node.target.join(' ')} ${node.failureSummary?.split('\n').slice(-1)[0] ?? ''}`,
                )
                .join(' | ')}`,
            );
        }
      }
      expect(found).toEqual([]);
    }, 300_000);
  }
});
