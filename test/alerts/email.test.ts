import { describe, expect, it } from 'vitest';
import type { AlertContent } from '../../src/alerts/run-alerts.js';
import { alert } from '../../src/config/alert-section.js';
import { composeAlertEmail } from '../../src/delivery/compose/alert-email.js';

/**
 * The alert email treats API strings as untrusted: escaped in the HTML, stripped of line breaks in
 * the subject; it has a plain-text part, no attachment, and a line naming the next scheduled report.
 */

const hostile = '<script>alert(1)</script><img src="http://127.0.0.1:1/x.png">';
const content: AlertContent = {
  alert: 'drop',
  account: 'acme',
  querySetId: 101,
  querySet: `Main ${hostile}`,
  brand: 'Evil\r\nBcc: victim@example.com',
  run: { id: 2, label: 'Week 2 · 2026' },
  previousRun: { id: 1, label: 'Week 1 · 2026' },
  firings: [
    {
      rule: 0,
      kind: 'new_error',
      headline: `New error in the Gravity register: ${hostile}`,
      errors: [
        {
          id: 'GE-1',
          title: hostile,
          correct: `Correct ${hostile}`,
          claims: [hostile],
          engines: ['ChatGPT'],
        },
      ],
    },
    {
      rule: 1,
      kind: 'change',
      headline: 'Gross presence changed −9.0 pts',
      metricName: 'Gross presence',
      metric: 'presence.gross.current',
      before: '40.0%',
      after: '31.0%',
      change: '−9.0 pts',
      series: [
        { label: 'Week 1 · 2026', value: 40 },
        { label: `Week 2 ${hostile}`, value: 31 },
      ],
    },
  ],
};

describe('alert email', () => {
  const config = alert.parse({
    name: 'drop',
    rules: [{ event: 'new_error' }],
    email: { to: ['cmo@example.com'] },
  });
  const message = composeAlertEmail({
    alert: config,
    content,
    from: 'r@example.com',
    messageId: '<x@example.com>',
    date: new Date(Date.UTC(2026, 10, 23, 12)),
    reports: [{ name: 'weekly', query_sets: [101], schedule: { cron: '0 8 * * 1', timezone: 'UTC' } }],
  });

  it('escapes API text in the HTML and keeps the subject on one line', () => {
    const html = String(message.html);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(String(message.subject)).not.toMatch(/[\r\n]/);
    expect(String(message.subject)).toMatch(/^Alert — drop — Evil/);
  });

  it('has a plain-text part with before/after, the claim and the next report, and no attachment', () => {
    const text = String(message.text);
    expect(text).toContain('Before 40.0%, after 31.0%, change −9.0 pts');
    expect(text).toContain(`Claim: "${hostile}"`);
    expect(text).toContain('Engines repeating it: ChatGPT');
    expect(text).toContain('Next scheduled report: weekly, 2026-11-30 08:00 UTC.');
    expect(message.attachments).toBeUndefined();
    // The chart: one bar per stored run, the newest highlighted.
    expect(String(message.html)).toMatch(/<caption[^>]*>Gross presence over stored runs<\/caption>/);
    expect(String(message.html)).not.toContain('presence.gross');
    expect(String(message.html).match(/bgcolor=/g)).toHaveLength(2);
  });
});

describe('the default alert subject', () => {
  it('names the brand, the set and the run: 100 sets firing on the same week are 100 distinct subjects', () => {
    const config = alert.parse({
      name: 'drop',
      rules: [{ event: 'new_error' }],
      email: { to: ['a@example.com'] },
    });
    const subjects = Array.from({ length: 100 }, (_, i) =>
      String(
        composeAlertEmail({
          alert: config,
          content: { ...content, brand: 'Northwind', querySetId: 1000 + i, querySet: `Journey ${i}` },
          from: 'r@example.com',
          messageId: `<${i}@example.com>`,
          date: new Date(Date.UTC(2026, 10, 23, 12)),
          reports: [],
        }).subject,
      ),
    );
    expect(new Set(subjects).size).toBe(100);
    expect(subjects[7]).toBe('Alert — drop — Northwind — Journey 7 — Week 2 · 2026');
  });
});
