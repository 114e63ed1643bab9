import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { composeEmail } from '../../src/delivery/compose/email.js';
import { attachmentName } from '../../src/delivery/content.js';
import { writeEml } from '../../src/delivery/eml.js';
import { headlineKpis, headlineSummary } from '../../src/delivery/headline.js';
import { buildReportModel, type ReportSnapshot } from '../../src/report/model/index.js';
import { fakeFile, tempDir } from './smtp-helpers.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

const payloads = {
  'presence.weighted': {
    data: {
      current: 42.25,
      delta: 2.1,
      history: [],
      historyLabels: [],
      fairShare: 18,
      dStar: 1.2,
      classification: 'leader',
    },
    error: null,
  },
  // Not a number: the model marks the card unavailable, so the email leaves it out as the PDF does.
  'presence.gross': { data: { current: 'n/a', delta: 0, history: [], historyLabels: [] }, error: null },
  'gravity.gravity-minus': { data: { current: 12, delta: 3, history: [], historyLabels: [] }, error: null },
  'gravity.open-errors': {
    data: { count: 4, delta: -1, resolvedSinceBaseline: 2, history: [], historyLabels: [] },
    error: null,
  },
  'overview.summary': { data: { content: 'Presence rose   in\nthe <b>coffee</b> segment.' }, error: null },
};

const snapshot: ReportSnapshot = {
  id: 1,
  account: 'default',
  brand: { id: 1, name: 'Café' },
  querySet: { id: 101, name: 'Main set', details: null },
  run: { id: 7, display_name: 'W14', created_at: '2026-04-06T08:00:00Z' },
  state: 'complete',
  completedAt: '2026-04-06T09:00:00Z',
  payloads,
};
/** The headline is read from the view model the PDF is drawn from, as the delivery renderer does. */
const modelIn = (locale?: string) =>
  buildReportModel(snapshot, [snapshot], { generatedAt: new Date(0), version: 'test', locale });

describe('report email', () => {
  it('headline KPIs use the report number rules; changes not judged carry no mark, their direction in words', () => {
    const kpis = headlineKpis(modelIn());
    // None of these is judged: no earlier run is stored, so the service's own deltas are shown, said
    // to be the service's, with no arrow, no colour, no "better"/"worse".
    expect(kpis.map((k) => [k.label, k.value, k.delta, k.arrow, k.good, k.bad, k.said])).toEqual([
      [
        'Weighted presence',
        '42.3%',
        '+2.1 pts (as reported by the service)',
        '',
        false,
        false,
        'up 2.1 points, not judged',
      ],
      [
        'Gravity−',
        '12.0%',
        '+3.0 pts (as reported by the service)',
        '',
        false,
        false,
        'up 3.0 points, not judged',
      ],
      ['Open errors', '4', '−1', '', false, false, 'down 1, not judged'],
    ]);
    expect(headlineSummary(modelIn())).toBe('Presence rose in the <b>coffee</b> segment.');
  });

  it('composes subject, escaped HTML, a text part and safely named attachments; writes an .eml', async () => {
    const message = await composeEmail({
      from: 'Reports <reports@example.com>',
      messageId: '<delivery-1-abc@reportd>',
      report: {
        name: 'weekly-executive',
        email: {
          to: ['ceo@example.com'],
          cc: ['cfo@example.com'],
          subject: '{{brand}} · {{query_set}} · {{run}}\r\nBcc: x@evil',
        },
        max_attachment_mb: 10,
      },
      content: {
        brand: 'Café <Ünïcode> & Co',
        querySet: { id: 101, name: 'Main set' },
        run: { id: 7, display_name: '../../etc/passwd W14' },
        kpis: headlineKpis(modelIn()),
        summary: headlineSummary(modelIn()),
        files: [
          { path: fakeFile(tmp.dir, 'a.pdf'), format: 'pdf' },
          { path: fakeFile(tmp.dir, 'a.xlsx'), format: 'xlsx' },
          { path: fakeFile(tmp.dir, 'a.html'), format: 'html' },
        ],
      },
    });
    const file = await writeEml(message, join(tmp.dir, 'out', 'report.eml'));
    const mail = await simpleParser(readFileSync(file));
    // The newline in the template cannot start a header.
    expect(mail.subject).toBe('Café <Ünïcode> & Co · Main set · ../../etc/passwd W14 Bcc: x@evil');
    expect(mail.headers.get('bcc')).toBeUndefined();
    expect(mail.messageId).toBe('<delivery-1-abc@reportd>');
    expect(mail.attachments.map((a) => a.filename)).toEqual([
      'weekly-executive-cafe-unicode-co-etc-passwd-w14.pdf',
      'weekly-executive-cafe-unicode-co-etc-passwd-w14.xlsx',
    ]);
    expect(mail.html).toContain('Café &lt;Ünïcode&gt; &amp; Co');
    expect(mail.html).toContain('&lt;b&gt;coffee&lt;/b&gt;');
    expect(mail.html).toContain('42.3%');
    expect(mail.text).toContain('Weighted presence: 42.3% (+2.1 pts (as reported by the service))');
    expect(mail.text).toContain('Café <Ünïcode> & Co');
  });

  it('speaks the report locale: default subject, HTML body, text part and numbers (de-DE)', async () => {
    const message = await composeEmail({
      from: 'Reports <reports@example.com>',
      messageId: '<delivery-2-abc@reportd>',
      report: {
        name: 'wochenbericht',
        locale: 'de-DE',
        email: { to: ['vorstand@example.com'] },
        max_attachment_mb: 10,
      },
      content: {
        brand: 'Kaffee & <Co>',
        querySet: { id: 12345, name: 'Hauptset' },
        run: { id: 67890, display_name: 'KW 14' },
        kpis: headlineKpis(modelIn('de-DE')),
        files: [
          { path: fakeFile(tmp.dir, 'b.pdf'), format: 'pdf' },
          { path: fakeFile(tmp.dir, 'b.xlsx'), format: 'xlsx' },
        ],
      },
    });
    const mail = await simpleParser(readFileSync(await writeEml(message, join(tmp.dir, 'de.eml'))));
    expect(mail.subject).toBe('KI-Sichtbarkeit — Kaffee & <Co> — KW 14');
    expect(mail.html).toContain('<html lang="de-DE"');
    expect(mail.html).toContain('Kaffee &amp; &lt;Co&gt;');
    expect(mail.html).toContain('Gewichtete Präsenz');
    expect(mail.html).toContain('42,3\u00a0%');
    expect(mail.text).toContain('Gewichtete Präsenz: 42,3\u00a0% (+2,1 Pp. (wie vom Dienst gemeldet))');
    expect(mail.text).toContain('Offene Fehler: 4 (−1)');
    expect(mail.text).toContain(
      'Im Anhang: wochenbericht-kaffee-co-kw-14.pdf und wochenbericht-kaffee-co-kw-14.xlsx.',
    );
    // Ids are not quantities: no digit grouping in "Abfrageset 12345, Lauf 67890".
    expect(mail.text).toContain('Abfrageset 12345, Lauf 67890.');
    for (const english of ['Weighted presence', 'This run', 'Attached', 'Sent by reportd', 'AI visibility']) {
      expect(mail.html).not.toContain(english);
      expect(mail.text).not.toContain(english);
    }
  });

  it('attachment names are ASCII, bounded, never empty', () => {
    expect(attachmentName('r', '日本', '', 'pdf')).toBe('r.pdf');
    expect(attachmentName('', '', '', 'pdf')).toBe('report.pdf');
    expect(attachmentName('x'.repeat(300), 'b', 'c', 'pdf').length).toBeLessThanOrEqual(104);
  });
});
