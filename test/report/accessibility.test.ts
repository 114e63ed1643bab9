import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alert } from '../../src/config/alert-section.js';
import { composeAlertEmail } from '../../src/delivery/compose/alert-email.js';
import { composeEmail } from '../../src/delivery/compose/email.js';
import { digestEmailContent, emailContentFor } from '../../src/delivery/headline.js';
import { endBrowser, launchBrowser } from '../../src/report/browser-slot.js';
import { findChromium } from '../../src/report/chromium.js';
import { periodOf, renderDigestHtml } from '../../src/report/digest/html.js';
import { renderReportHtml } from '../../src/report/html.js';
import { buildReportModel } from '../../src/report/model/index.js';
import type { PageSetup } from '../../src/report/page.js';
import { loadReportTemplates } from '../../src/report/templates.js';
import { themeView } from '../../src/report/theme/theme.js';
import type { StoredSnapshot } from '../../src/store/snapshots.js';
import { wcagViolations } from './axe.js';
import { fixtureSnapshot } from './fixtures.js';
import { solidPng } from './images.js';

/**
 * WCAG 2.1 AA for the HTML the PDF and the emails are printed from, checked by axe-core on the real
 * Chromium: every built-in template (report, digest, report email, digest email, alert email), every
 * locale, both paper orientations. One browser, one page, each variant loaded into it in turn; the
 * documents as print lays them out (print media), the emails as a mail client shows them (screen).
 */
/** One tag per language of the catalogs (en-GB has en-US's words, only its dates differ). */
const LOCALES = ['en-US', 'de-DE', 'fr-FR', 'es-ES'];
const ORIENTATIONS: PageSetup['orientation'][] = ['portrait', 'landscape'];
const templates = loadReportTemplates();

let dir: string;
let browser: Browser;
let page: Page;
let logo: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-axe-'));
  logo = join(dir, 'logo.png');
  writeFileSync(logo, solidPng(48, 24, [31, 78, 121]));
  browser = await launchBrowser({
    executablePath: findChromium(),
    handleSignals: false,
    protocolTimeoutMs: 60_000,
  });
  page = await browser.newPage();
});

afterAll(async () => {
  await endBrowser(browser, { kill: true });
  rmSync(dir, { recursive: true, force: true });
});

/** axe's WCAG 2.1 AA violations of `html`, one line each: rule, impact and the first offending nodes. */
async function violations(html: string, media: 'print' | 'screen'): Promise<string[]> {
  await page.emulateMediaType(media);
  await page.setContent(html, { waitUntil: 'load' });
  return (await wcagViolations(page)).map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes
        .slice(0, 3)
        .map(
          (node) => `${node.target.join(' ')} ${node.failureSummary?.split('\n').slice(1).join(' ') ?? ''}`,
        )
        .join(' | ')}`,
  );
}

const meta = (locale: string) => ({
  generatedAt: new Date('2026-11-23T08:00:00Z'),
  version: 'test',
  locale,
  timeZone: 'Europe/Berlin',
});
// The second set misses two payloads, so its pages show the "data unavailable" notes and card too.
const snapshots = ['Core journeys', 'Office & wholesale'].map((name, i) =>
  fixtureSnapshot({
    querySetId: 101 + i,
    querySet: name,
    brand: `Brand ${i + 1}`,
    runId: 9000 + i,
    payloads: i === 1 ? { 'gravity.open-errors': undefined, 'gravity.source-distribution': undefined } : {},
  }),
);
const theme = { logo: '' };

describe('axe-core, WCAG 2.1 AA', () => {
  for (const locale of LOCALES) {
    const models = () => snapshots.map((snapshot) => buildReportModel(snapshot, [], meta(locale)));

    for (const orientation of ORIENTATIONS) {
      const paper: PageSetup = { size: 'A4', orientation };

      it(`report and digest, ${locale}, ${orientation}: no violation`, async () => {
        theme.logo = logo;
        const contents = { theme: await themeView(theme) };
        const [model] = models();
        const report = renderReportHtml(model!, templates, paper, contents);
        expect(await violations(report.html, 'print'), 'report').toEqual([]);
        const digest = renderDigestHtml(
          {
            report: 'weekly',
            // One set: the sections are the report's own partials, checked above at full size.
            sets: [{ model: models()[1]!, moves: [] }],
            moves: [],
            locale,
            page: paper,
            contents,
            period: periodOf(snapshots.map((s) => s.run)),
            pages: { portfolio: 3, sets: [4] },
          },
          templates,
        );
        expect(await violations(digest.html, 'print'), 'digest').toEqual([]);
      });
    }

    it(`report and digest emails, ${locale}: no violation`, async () => {
      const report = { name: 'weekly', locale, email: { to: ['a@example.com'] }, theme: { logo } };
      const sets = snapshots.map((snapshot, i) => ({
        snapshot: snapshot as unknown as StoredSnapshot,
        model: models()[i]!,
      }));
      const single = await composeEmail({
        from: 'r@example.com',
        messageId: '<a@reportd>',
        report,
        content: emailContentFor(sets[0]!.snapshot, sets[0]!.model, []),
      });
      expect(await violations(String(single.html), 'screen'), 'report email').toEqual([]);
      const digest = await composeEmail({
        from: 'r@example.com',
        messageId: '<b@reportd>',
        report,
        content: digestEmailContent(sets, [], periodOf(snapshots.map((s) => s.run))),
      });
      expect(await violations(String(digest.html), 'screen'), 'digest email').toEqual([]);
    });
  }

  it('finds what it should: a theme primary too pale for the white text on it', async () => {
    const pale = await themeView({ primary: '#9ABCDE' });
    const [model] = snapshots.map((snapshot) => buildReportModel(snapshot, [], meta('en-US')));
    // The cover alone (no section chosen) is enough: its band is the primary under white text.
    const report = renderReportHtml(model!, templates, undefined, { theme: pale, sections: [] });
    expect((await violations(report.html, 'print')).join('\n')).toMatch(/^color-contrast .*#ffffff/m);
  });

  it('alert email (English only, as alerts are): no violation', async () => {
    const message = composeAlertEmail({
      alert: alert.parse({ name: 'drop', rules: [{ event: 'new_error' }], email: { to: ['a@example.com'] } }),
      content: {
        alert: 'drop',
        account: 'acme',
        querySetId: 101,
        querySet: 'Core journeys',
        brand: 'Brand 1',
        run: { id: 2, label: 'Week 2 · 2026' },
        previousRun: { id: 1, label: 'Week 1 · 2026' },
        firings: [
          {
            rule: 0,
            kind: 'change',
            headline: 'Gross presence changed −9.0 pts',
            metricName: 'Gross presence',
            metric: 'presence.gross.current',
            before: '40.0%',
            after: '31.0%',
            change: '−9.0 pts',
            series: [
              { label: 'Week 1 · 2026', value: 40 },
              { label: 'Week 2 · 2026', value: 31 },
            ],
          },
        ],
      },
      from: 'r@example.com',
      messageId: '<c@reportd>',
      date: new Date(Date.UTC(2026, 10, 23, 12)),
      reports: [],
    });
    expect(await violations(String(message.html), 'screen')).toEqual([]);
  });
});
