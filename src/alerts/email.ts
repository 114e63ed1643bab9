import Handlebars from 'handlebars';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { AlertConfig } from '../config/alert-section.js';
import { nextFireTime } from '../config/cron.js';
import type { SubjectVariables } from '../config/subject-template.js';
import { headerText } from '../printable.js';
import { comparedWithText } from './compared-with-text.js';
import type { AlertContent } from './run-alerts.js';

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
  const text: string[] = [intro, ''];
  // A document a screen reader can find its way in: language, title, a heading per firing.
  const html: string[] = [
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    `<body style="font-family:Arial,sans-serif;font-size:14px;color:#222">`,
    `<h1 style="font-size:18px;margin:0 0 8px">${escapeHtml(subject)}</h1>`,
    `<p>${escapeHtml(intro)}</p>`,
  ];
  for (const firing of content.firings) {
    text.push(`* ${firing.headline}`);
    html.push(`<h2 style="font-size:15px;margin:16px 0 4px">${escapeHtml(firing.headline)}</h2>`);
    if (firing.before !== undefined && firing.after !== undefined && firing.change !== undefined) {
      const line = `Before ${firing.before}, after ${firing.after}, change ${firing.change}`;
      text.push(`  ${line}`);
      html.push(`<p style="margin:0 0 6px">${escapeHtml(line)}</p>`);
    }
    for (const error of firing.errors ?? []) {
      const claims = error.claims.map((c) => `"${c}"`).join('; ') || '(no claim text)';
      text.push(
        `  Claim: ${claims}`,
        `  Correct answer: ${error.correct}`,
        `  Engines repeating it: ${error.engines.join(', ') || 'not named'}`,
      );
      html.push(
        `<p style="margin:0 0 6px">Claim: <em>${escapeHtml(claims)}</em><br>Correct answer: ${escapeHtml(error.correct)}<br>Engines repeating it: ${escapeHtml(error.engines.join(', ') || 'not named')}</p>`,
      );
    }
    if (firing.series && firing.series.length > 1) {
      html.push(barChart(firing.series, firing.metricName ?? firing.metric ?? ''));
      text.push(
        `  Over stored runs: ${firing.series.map((p) => `${p.label} ${p.value.toFixed(1)}`).join(', ')}`,
      );
    }
  }
  text.push('', next);
  html.push(`<p style="color:#555;margin-top:16px">${escapeHtml(next)}</p></body></html>`);
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
    const width = Math.max(1, Math.round((Math.abs(point.value) / max) * 200));
    const color = i === series.length - 1 ? '#c0392b' : '#7f8c9a';
    return `<tr><th scope="row" style="padding:1px 6px 1px 0;font-size:12px;font-weight:400;text-align:left;white-space:nowrap">${escapeHtml(point.label)}</th><td style="padding:1px 0"><table role="presentation" cellpadding="0" cellspacing="0"><tr><td aria-hidden="true" width="${width}" height="10" bgcolor="${color}" style="background:${color};width:${width}px;height:10px;font-size:0;line-height:0">&nbsp;</td><td style="padding-left:6px;font-size:12px">${point.value.toFixed(1)}</td></tr></table></td></tr>`;
  });
  return `<table cellpadding="0" cellspacing="0" style="margin:4px 0 10px"><caption style="text-align:left;font-size:12px;color:#555">${escapeHtml(metric)} over stored runs</caption>${rows.join('')}</table>`;
}

function nextReportLine(options: AlertMailOptions): string {
  const { content } = options;
  let best: { name: string; at: number } | undefined;
  for (const report of options.reports) {
    if (!report.schedule) continue;
    if (report.query_sets !== 'all' && !report.query_sets.includes(content.querySetId)) continue;
    const at = nextFireTime(report.schedule.cron, report.schedule.timezone, options.date.getTime());
    if (!best || at < best.at) best = { name: report.name, at };
  }
  return best
    ? `Next scheduled report: ${best.name}, ${new Date(best.at).toISOString().replace('T', ' ').slice(0, 16)} UTC.`
    : 'No scheduled report covers this query set.';
}
