import Handlebars from 'handlebars';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { comparedWithText } from '../../alerts/compared-with-text.js';
import type { AlertContent } from '../../alerts/run-alerts.js';
import type { AlertConfig } from '../../config/alert-section.js';
import { nextFireTime } from '../../config/cron.js';
import { scheduleZone } from '../../config/recipient-schema.js';
import type { SubjectVariables } from '../../config/subject-template.js';
import { headerText } from '../../printable.js';
import { cardRow, emailClose, emailOpen, mutedText } from './email-layout.js';

/**
 * The alert email: short, HTML-escaped, with a plain-text alternative and no attachment. The chart is
 * a table of bars (cells with a width), not an image: every mail client renders it, none blocks it as
 * remote content, and it needs no renderer.
 */

export interface AlertMailOptions {
  alert: AlertConfig;
  content: AlertContent;
  from: string;
  messageId: string;
  date: Date;
  /** Reports with a schedule that cover this set, for the "next report" line. */
  reports: readonly {
    name: string;
    query_sets: 'all' | readonly number[];
    schedule?: { cron: string; timezone: string };
  }[];
}

const escapeHtml = (text: string) => Handlebars.escapeExpression(text);
/** The band over the card: the alert's red, as the bar of the newest run. */
const ALERT_BAND = '#c0392b';

export function composeAlertEmail(options: AlertMailOptions): Mail.Options {
  const { alert, content } = options;
  // Only alerts with an email section get email rows (run-alerts.ts); the outbox checks before calling.
  const email = alert.email;
  if (!email) throw new Error(`alert "${alert.name}" has no email section`);
  const subject = headerText(
    Handlebars.compile(email.subject, { noEscape: true })({
      brand: content.brand,
      query_set: content.querySet,
      run: content.run.label,
      report: alert.name,
      // The subject variables are one list for reports and alerts: an alert is about one (set, run).
      sets: '1',
      period: content.run.label,
    } satisfies SubjectVariables),
  );
  const next = nextReportLine(options);
  const intro = `${content.querySet} (${content.brand}), run ${content.run.label} compared with ${comparedWithText(content, 'the run before')}:`;
  // The text part opens as the HTML does: the subject as its heading, then the same lines.
  const text: string[] = [subject, '', intro, ''];
  // A document a screen reader can find its way in: language, title, a heading per firing; in the
  // fluid card every email has (email-layout.ts).
  const html: string[] = [
    emailOpen({ lang: 'en', title: subject }),
    `<tr><td height="6" style="height:6px;line-height:6px;font-size:6px;background-color:${ALERT_BAND};">&nbsp;</td></tr>`,
    cardRow(`<h1 style="font-size:18px;margin:0;">${escapeHtml(subject)}</h1>`, 'text', '20px 16px 4px 16px'),
    cardRow(escapeHtml(intro)),
  ];
  for (const firing of content.firings) {
    text.push(`* ${firing.headline}`);
    const cell: string[] = [
      `<h2 style="font-size:15px;margin:0 0 4px 0;">${escapeHtml(firing.headline)}</h2>`,
    ];
    if (firing.before !== undefined && firing.after !== undefined && firing.change !== undefined) {
      const line = `Before ${firing.before}, after ${firing.after}, change ${firing.change}`;
      text.push(`  ${line}`);
      cell.push(`<div>${escapeHtml(line)}</div>`);
    }
    for (const error of firing.errors ?? []) {
      const claims = error.claims.map((c) => `"${c}"`).join('; ') || '(no claim text)';
      text.push(
        `  Claim: ${claims}`,
        `  Correct answer: ${error.correct}`,
        `  Engines repeating it: ${error.engines.join(', ') || 'not named'}`,
      );
      cell.push(
        `<div>Claim: <em>${escapeHtml(claims)}</em><br>Correct answer: ${escapeHtml(error.correct)}<br>Engines repeating it: ${escapeHtml(error.engines.join(', ') || 'not named')}</div>`,
      );
    }
    if (firing.series && firing.series.length > 1) {
      cell.push(barChart(firing.series, firing.metricName ?? firing.metric ?? ''));
      text.push(
        `  Over stored runs: ${firing.series.map((p) => `${p.label} ${p.value.toFixed(1)}`).join(', ')}`,
      );
    }
    html.push(cardRow(cell.join(''), 'text', '12px 16px 4px 16px'));
  }
  text.push('', next);
  html.push(cardRow(escapeHtml(next), 'muted', '12px 16px 20px 16px'), emailClose());
  return {
    from: options.from,
    to: email.to,
    cc: email.cc.length ? email.cc : undefined,
    bcc: email.bcc.length ? email.bcc : undefined,
    subject,
    messageId: options.messageId,
    date: options.date,
    text: `${text.join('\n')}\n`,
    html: html.join('\n'),
  };
}

/**
 * Horizontal bars, one row per stored run, widths relative to the largest value. A data table (its
 * caption names the metric, each row its run) with every value written beside its bar: the bars add
 * nothing a screen reader needs, so they are hidden from it.
 */
function barChart(series: readonly { label: string; value: number }[], metric: string): string {
  const max = Math.max(...series.map((p) => Math.abs(p.value)), 1e-9);
  const rows = series.map((point, i) => {
    // A share of the bar column, not pixels: the chart narrows with the card on a phone.
    const width = Math.max(1, Math.round((Math.abs(point.value) / max) * 100));
    const color = i === series.length - 1 ? '#c0392b' : '#7f8c9a';
    const bar = `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="width:100%;"><tr><td aria-hidden="true" width="${width}%" height="10" bgcolor="${color}" style="background-color:${color};width:${width}%;height:10px;font-size:0;line-height:0;">&nbsp;</td>${width < 100 ? '<td style="font-size:0;line-height:0;">&nbsp;</td>' : ''}</tr></table>`;
    return `<tr><th scope="row" width="35%" style="padding:1px 6px 1px 0;font-size:12px;font-weight:400;text-align:left;">${escapeHtml(point.label)}</th><td style="padding:1px 0;">${bar}</td><td width="48" align="right" style="padding:1px 0 1px 6px;font-size:12px;">${point.value.toFixed(1)}</td></tr>`;
  });
  return `<table width="100%" cellpadding="0" cellspacing="0" border="0" style="width:100%;margin:4px 0 10px 0;"><caption ${mutedText('text-align:left;font-size:12px;')}>${escapeHtml(metric)} over stored runs</caption>${rows.join('')}</table>`;
}

function nextReportLine(options: AlertMailOptions): string {
  const { content } = options;
  let best: { name: string; at: number } | undefined;
  for (const report of options.reports) {
    if (!report.schedule) continue;
    if (report.query_sets !== 'all' && !report.query_sets.includes(content.querySetId)) continue;
    const at = nextFireTime(report.schedule.cron, scheduleZone(report), options.date.getTime());
    if (!best || at < best.at) best = { name: report.name, at };
  }
  return best
    ? `Next scheduled report: ${best.name}, ${new Date(best.at).toISOString().replace('T', ' ').slice(0, 16)} UTC.`
    : 'No scheduled report covers this query set.';
}
